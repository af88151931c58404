import * as path from 'node:path';

/** Repository root, from the compiled location out/test/helpers. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures');
export const NODE_MODULES = path.join(REPO_ROOT, 'node_modules');

// Every CLI a test starts inherits this (over a developer's own setting): no test reads or writes
// the user's era file, and no test teaches another (they reuse ports) which endpoint is legacy.
// Tests of the era file set their own.
process.env.MCP_HOST_ERA_FILE = 'off';
// Nor into the home's compile cache, with a `node` of 22.1 or later (cli/compileCache.ts).
process.env.NODE_DISABLE_COMPILE_CACHE = '1';

export function fixture(name: string): string {
  return path.join(FIXTURES_DIR, name);
}
