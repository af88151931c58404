import type * as Inspect from '../inspect';

let loaded: typeof Inspect | undefined;

/** The doctor and the server report, loaded on first use (dist/inspect.js in the extension's bundle). */
export function loadInspect(): typeof Inspect {
  // esbuild keeps this require out of the bundle and points it at dist/inspect.js (esbuild.mjs);
  // compiled by tsc (tests), it resolves as written.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../inspect') as typeof Inspect;
  return loaded;
}
