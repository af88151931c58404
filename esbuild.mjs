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

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
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
