// dist/ajv.js (src/ajv.ts: Ajv and the RE2 engine for schema patterns), loaded on first use.
// The one place that requires it: esbuild keeps this require out of extension.js and cli.js and
// points it at dist/ajv.js (LAZY_PARTS in esbuild.mjs).

export type AjvBundle = typeof import('../ajv');

let bundle: AjvBundle | undefined;

export function loadAjvBundle(): AjvBundle {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  bundle ??= require('../ajv') as AjvBundle;
  return bundle;
}
