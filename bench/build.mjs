// Builds our client for the bench with the extension's production esbuild settings
// (esbuild.mjs --production: bundled, minified, node20, cjs, ES-module entry points preferred),
// so the bench runs the same protocol, transport and zod/mini code, compiled the same way,
// that dist/extension.js ships. Only the entry differs: it exports McpClient, StdioTransport,
// TrafficRecorder (the traffic view's ring), createHttpTransport (for the HTTP scenarios) and the
// agent choice the CLI makes (useHttpAgents, ownKeepAliveAgents).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { OURS_BUNDLE, ROOT } from './paths.mjs';

/** Whether our HTTP transport exists yet (the HTTP scenarios need it for "ours"). */
export const HAS_HTTP = existsSync(join(ROOT, 'src/transport/http.ts'));

/** minify: false gives readable names for profiling (node --cpu-prof); the bench always runs minified. */
export async function buildOurs({ minify = true } = {}) {
  await esbuild.build({
    stdin: {
      contents:
        "export { McpClient } from './src/protocol/client';\nexport { StdioTransport } from './src/transport/stdio';\n" +
        "export { TrafficRecorder } from './src/host/traffic';\n" +
        (HAS_HTTP ? "export { createHttpTransport } from './src/transport/http';\nexport { useHttpAgents } from './src/transport/nodeHttp';\nexport { ownKeepAliveAgents } from './src/transport/keepAliveAgents';\n" : ''),
      resolveDir: ROOT,
      sourcefile: 'bench-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    mainFields: ['module', 'main'],
    outfile: OURS_BUNDLE,
  });
  return OURS_BUNDLE;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const minify = !process.argv.includes('--no-minify');
  await buildOurs({ minify });
  console.log(`built ${OURS_BUNDLE}${minify ? '' : ' (not minified, for profiling)'}`);
}
