import type * as Catalog from '../catalog';

let loaded: typeof Catalog | undefined;

/** The MCP-registry catalog, loaded on first use (dist/catalog.js in the extension's bundle). */
export function loadCatalog(): typeof Catalog {
  // esbuild keeps this require out of the bundle and points it at dist/catalog.js (esbuild.mjs);
  // compiled by tsc (tests), it resolves as written.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../catalog') as typeof Catalog;
  return loaded;
}
