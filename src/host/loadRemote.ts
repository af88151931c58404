import type * as Remote from '../remote';

let loaded: typeof Remote | undefined;

/** The HTTP transports and OAuth, loaded on first use (dist/remote.js in the bundles). */
export function loadRemote(): typeof Remote {
  // esbuild keeps this require out of the bundle and points it at dist/remote.js (esbuild.mjs);
  // compiled by tsc (tests), it resolves as written.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../remote') as typeof Remote;
  return loaded;
}
