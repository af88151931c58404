import type * as Remote from '../remote';

let loaded: typeof Remote | undefined;
const setups: Array<(remote: typeof Remote) => void> = [];

/**
 * Runs `setup` on the remote part when it loads (at once if it has): e.g. the CLI's proxy agents.
 * Disposed before the part loads, the setup never runs (the extension deactivated first).
 */
export function whenRemoteLoads(setup: (remote: typeof Remote) => void): { dispose(): void } {
  if (loaded !== undefined) {
    setup(loaded);
    return { dispose: () => undefined };
  }
  setups.push(setup);
  return {
    dispose: () => {
      const at = setups.indexOf(setup);
      if (at !== -1) setups.splice(at, 1);
    },
  };
}

/** The HTTP transports and OAuth, loaded on first use (dist/remote.js in the bundles). */
export function loadRemote(): typeof Remote {
  // esbuild keeps this require out of the bundle and points it at dist/remote.js (esbuild.mjs);
  // compiled by tsc (tests), it resolves as written.
  if (loaded === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require('../remote') as typeof Remote;
    for (const setup of setups.splice(0)) setup(loaded);
  }
  return loaded;
}
