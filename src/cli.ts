// The `mcp-host` command (dist/cli.js): Node's compile cache first, then the CLI itself
// (cliMain.ts, dist/cli-main.js), so that the cache covers the CLI's own code too.
import { enableCompileCache } from './cli/compileCache';

enableCompileCache(process.env);
// esbuild keeps this require out of the bundle and points it at dist/cli-main.js (esbuild.mjs);
// compiled by tsc (tests), it resolves as written.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./cliMain');
