// Bundles the extension and the CLI. `vscode` stays external: the editor provides it.
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  legalComments: 'none',
  logLevel: 'info',
  metafile: true,
  // Prefer ES modules: jsonc-parser's UMD build hides its requires from the bundler.
  mainFields: ['module', 'main'],
};

/**
 * host/loadRemote.ts requires '../remote' (the HTTP transports and OAuth) when a remote server is
 * first used: in the bundles that is dist/remote.js, beside extension.js and cli.js, not inlined.
 */
const remoteAsSeparateBundle = {
  name: 'remote-as-separate-bundle',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/remote$/ }, (args) =>
      args.importer.replaceAll('\\', '/').endsWith('src/host/loadRemote.ts') ? { path: './remote.js', external: true } : undefined,
    );
  },
};

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [remoteAsSeparateBundle] },
  { ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [remoteAsSeparateBundle] },
  // Loaded by both of the above the first time a remote server is used.
  { ...common, entryPoints: ['src/remote.ts'], outfile: 'dist/remote.js' },
  // The webview pages: browser scripts, one per page, with their libraries (markdown-it) inside.
  {
    ...common,
    platform: 'browser',
    target: ['chrome114'],
    format: 'iife',
    entryPoints: { schemaForm: 'src/webview/schemaForm.ts', toolResult: 'src/webview/toolResult.ts' },
    outdir: 'dist/webview',
    mainFields: ['browser', 'module', 'main'],
  },
];

for (const options of builds) {
  if (watch) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}
