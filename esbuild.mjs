// Bundles the extension and the CLI. `vscode` stays external: the editor provides it.
import * as esbuild from 'esbuild';
import { pathToFileURL } from 'node:url';

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
  // The consent-replacing test hooks exist in development builds only (src/vscode/usage/requests).
  define: { MCP_HOST_TEST_HOOKS: JSON.stringify(!production) },
  logLevel: 'info',
  metafile: true,
  // Prefer ES modules: jsonc-parser's UMD build hides its requires from the bundler.
  mainFields: ['module', 'main'],
};

/**
 * Parts loaded on first use are bundles of their own, beside extension.js and cli.js, not inlined:
 * host/loadRemote.ts requires '../remote' (the HTTP transports and OAuth: dist/remote.js) when a
 * remote server is first used; host/ajvBundle.ts requires '../ajv' (Ajv and re2js: dist/ajv.js)
 * when a schema is first checked; host/loadInspect.ts requires '../inspect' (the doctor and the
 * server report: dist/inspect.js) when a server is first diagnosed or reported on;
 * host/loadCatalog.ts requires '../catalog' (the MCP-registry catalog: dist/catalog.js) when a
 * person first browses a registry or checks for updates. And dist/cli.js is
 * only the launcher of dist/cli-main.js (src/cli.ts).
 */
const LAZY_PARTS = [
  { importer: 'src/host/loadRemote.ts', specifier: '../remote', output: './remote.js' },
  // Ajv and the RE2 engine of schema patterns: tool arguments and results, forms, the report.
  { importer: 'src/host/ajvBundle.ts', specifier: '../ajv', output: './ajv.js' },
  // The doctor and the server report, in the extension (the CLI keeps them inline).
  { importer: 'src/host/loadInspect.ts', specifier: '../inspect', output: './inspect.js' },
  // The MCP-registry catalog: Browse Servers… and Check for Updates (the CLI keeps it inline).
  { importer: 'src/host/loadCatalog.ts', specifier: '../catalog', output: './catalog.js' },
  // The CLI itself, behind the small dist/cli.js that turns Node's compile cache on first.
  { importer: 'src/cli.ts', specifier: './cliMain', output: './cli-main.js' },
];
const lazyPartsAsSeparateBundles = {
  name: 'lazy-parts-as-separate-bundles',
  setup(build) {
    build.onResolve({ filter: /^(\.\.\/(\.\.\/)?(remote|ajv|inspect|catalog)|\.\/cliMain)$/ }, (args) => {
      const importer = args.importer.replaceAll('\\', '/');
      const part = LAZY_PARTS.find((p) => importer.endsWith(p.importer) && p.specifier === args.path);
      return part ? { path: part.output, external: true } : undefined;
    });
  },
};

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [lazyPartsAsSeparateBundles] },
  { ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [lazyPartsAsSeparateBundles] },
  { ...common, entryPoints: ['src/cliMain.ts'], outfile: 'dist/cli-main.js', plugins: [lazyPartsAsSeparateBundles] },
  // Loaded by those above on first use (LAZY_PARTS).
  { ...common, entryPoints: ['src/remote.ts'], outfile: 'dist/remote.js' },
  { ...common, entryPoints: ['src/ajv.ts'], outfile: 'dist/ajv.js' },
  { ...common, entryPoints: ['src/inspect.ts'], outfile: 'dist/inspect.js', plugins: [lazyPartsAsSeparateBundles] },
  { ...common, entryPoints: ['src/catalog.ts'], outfile: 'dist/catalog.js' },
  // The webview pages: browser scripts, one per page, with their libraries (markdown-it) inside.
  {
    ...common,
    platform: 'browser',
    target: ['chrome114'],
    format: 'iife',
    entryPoints: { schemaForm: 'src/webview/schemaForm.ts', toolResult: 'src/webview/toolResult.ts', mcpApp: 'src/webview/mcpApp.ts', traffic: 'src/webview/traffic.ts' },
    outdir: 'dist/webview',
    mainFields: ['browser', 'module', 'main'],
  },
];

/** The extension bundle's settings, for tools that measure it (bench/run.mjs). */
export const extensionBuild = builds[0];

// Builds when run (`node esbuild.mjs`), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const options of builds) {
    if (watch) {
      const ctx = await esbuild.context(options);
      await ctx.watch();
    } else {
      await esbuild.build(options);
    }
  }
}
