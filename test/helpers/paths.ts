import * as path from 'node:path';

/** Repository root, from the compiled location out/test/helpers. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures');
export const NODE_MODULES = path.join(REPO_ROOT, 'node_modules');

export function fixture(name: string): string {
  return path.join(FIXTURES_DIR, name);
}
