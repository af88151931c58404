import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { checkCommand, findCommand, readLoginShellPath } from '../../src/host/doctor/commandLookup';
import { checkCwd, checkEnvFile } from '../../src/host/doctor/localChecks';
import { checkPackage, npxCachedVersion, packageRunOf } from '../../src/host/doctor/packageRunner';
import { resolveVariables } from '../../src/host/doctor/variables';
import { checkAuthentication, checkTls } from '../../src/host/doctor/remoteChecks';
import * as https from 'node:https';
import { spawnSync } from 'node:child_process';
import { diagnoseServer, formatReportMarkdown, formatReportText, type DoctorEnvironment, type DoctorReport } from '../../src/host/doctor';
import type { ConfigSource, InputDefinition, ServerDefinition } from '../../src/host/config';
import { fixture } from '../helpers/paths';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-doctor-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let dirCount = 0;
function dir(): string {
  const d = path.join(tmp, `d${dirCount++}`);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

function program(folder: string, name: string, mode = 0o755): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode });
  fs.chmodSync(file, mode);
  return file;
}

const posix = process.platform !== 'win32';
const source = (file = path.join(tmp, 'mcp.json'), workspaceFolder?: string): ConfigSource => ({ file, kind: 'workspace', workspaceFolder });

function environment(overrides: Partial<DoctorEnvironment> = {}, stored: Record<string, string> = {}): DoctorEnvironment {
  return {
    processEnv: { PATH: process.env.PATH },
    inputs: [],
    storedInput: (input: InputDefinition) => Promise.resolve(stored[input.id]),
    missingInputHint: 'Start the server to be asked.',
    signInHint: (name) => `Sign in to ${name}.`,
    clientInfo: { name: 'doctor-test', version: '0.0.0' },
    timeoutMs: 5000,
    loginShellPath: () => Promise.resolve(undefined),
    npmLatestVersion: () => Promise.resolve(undefined),
    ...overrides,
  };
}

/** Every text a person could see in a report. */
function allText(report: DoctorReport): string {
  return [formatReportText(report), formatReportMarkdown(report), JSON.stringify(report)].join('\n');
}

describe('doctor: command lookup', { skip: !posix && 'POSIX PATH rules' }, () => {
  test('finds the first executable on PATH, skipping a non-executable file of the same name', () => {
    const [a, b] = [dir(), dir()];
    program(a, 'tool', 0o644);
    const good = program(b, 'tool');
    const found = findCommand('tool', { pathValue: `${a}:${b}`, cwd: tmp, platform: 'linux', env: {} });
    assert.equal(found.found, good);
    assert.deepEqual(found.searched, [a, b]);
  });

  test('a file that is not executable is said, with chmod as the fix', () => {
    const a = dir();
    const file = program(a, 'script', 0o644);
    const check = checkCommand({ command: 'script', lookup: { pathValue: a, cwd: tmp, platform: 'linux', env: {} }, file: 'mcp.json' });
    assert.equal(check.status, 'fail');
    assert.match(check.detail, /not executable/);
    assert.match(check.fix ?? '', new RegExp(`chmod \\+x ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  test('a relative command is taken from the working directory', () => {
    const cwd = dir();
    fs.mkdirSync(path.join(cwd, 'bin'));
    const file = program(path.join(cwd, 'bin'), 'server');
    assert.equal(findCommand('./bin/server', { pathValue: '', cwd, platform: 'linux', env: {} }).found, file);
    const missing = checkCommand({ command: './bin/nope', lookup: { pathValue: '', cwd, platform: 'linux', env: {} }, file: 'mcp.json' });
    assert.equal(missing.status, 'fail');
    assert.match(missing.detail, /does not exist \(looked for .*bin\/nope/);
  });

  test('a command only on the login shell PATH: says where, and what to do (absolute path or start from a terminal)', () => {
    const [gui, login] = [dir(), dir()];
    const onLogin = program(login, 'npx');
    const check = checkCommand({ command: 'npx', lookup: { pathValue: gui, cwd: tmp, platform: 'linux', env: {} }, loginPath: `${login}:${gui}`, file: '/w/.vscode/mcp.json' });
    assert.equal(check.status, 'fail');
    assert.match(check.detail, new RegExp(`your login shell finds it at ${onLogin}`));
    assert.match(check.detail, new RegExp(`Your login shell's PATH also has: ${login}`));
    assert.match(check.fix ?? '', new RegExp(`"command": "${onLogin}"`));
    assert.match(check.fix ?? '', /start VS Code from a terminal/);
  });

  test('a command on neither PATH: install it, or the absolute path', () => {
    const check = checkCommand({ command: 'no-such-tool-xyz', lookup: { pathValue: dir(), cwd: tmp, platform: 'linux', env: {} }, loginPath: dir(), file: 'mcp.json' });
    assert.equal(check.status, 'fail');
    assert.match(check.detail, /was not found\. PATH: .*not on your login shell's PATH either/);
    assert.match(check.fix ?? '', /^Install no-such-tool-xyz, or put the absolute path/);
  });

  test('the login shell PATH is read past what the profile prints, and a hanging shell gives up', async () => {
    const shellDir = dir();
    const shell = path.join(shellDir, 'fake-shell');
    // A "login shell": prints a banner, adds a folder as a profile would, then runs the given text.
    fs.writeFileSync(shell, '#!/bin/sh\necho "Welcome! nvm is loading"\nPATH=/opt/login/bin:$PATH\nexport PATH\nexec /bin/sh -c "$2"\n', { mode: 0o755 });
    assert.equal(await readLoginShellPath({ SHELL: shell, PATH: '/usr/bin:/bin' }, 'linux'), '/opt/login/bin:/usr/bin:/bin');
    const hanging = path.join(shellDir, 'hanging-shell');
    fs.writeFileSync(hanging, '#!/bin/sh\nexec sleep 10\n', { mode: 0o755 });
    const started = Date.now();
    assert.equal(await readLoginShellPath({ SHELL: hanging, PATH: '/usr/bin:/bin' }, 'linux', 300), undefined);
    assert.ok(Date.now() - started < 5000);
    assert.equal(await readLoginShellPath({ SHELL: shell }, 'win32'), undefined, 'no login shell on Windows');
  });

  test('a login shell that ignores SIGTERM and reads stdin (a profile prompting) is killed at the timeout, with what it started', async () => {
    const shellDir = dir();
    const pidFile = path.join(shellDir, 'pid');
    const stubborn = path.join(shellDir, 'stubborn-shell');
    // As an interactive bash: deaf to SIGTERM; its profile asks a question, then waits on a child.
    fs.writeFileSync(stubborn, `#!/bin/sh\ntrap '' TERM\nread answer\nsleep 30 &\necho $! > ${JSON.stringify(pidFile)}\nwait\n`, { mode: 0o755 });
    const started = Date.now();
    assert.equal(await readLoginShellPath({ SHELL: stubborn, PATH: '/usr/bin:/bin' }, 'linux', 500), undefined);
    assert.ok(Date.now() - started < 3000, `gave up after ${Date.now() - started} ms`);
    const child = Number(fs.readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 200));
    // Gone, or a zombie waiting for a reaper (this machine's init may not reap): it no longer runs.
    const state = fs.existsSync(`/proc/${child}/status`) ? /^State:\s+(\S)/m.exec(fs.readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] : 'gone';
    assert.ok(state === 'gone' || state === 'Z', `the profile's child still runs (state ${state})`);
  });
});

describe('doctor: cwd and envFile', () => {
  test('cwd: missing, a file, a folder, not set', () => {
    const missing = checkCwd(path.join(tmp, 'nope'), 'nope', tmp, 'mcp.json');
    assert.equal(missing.status, 'fail');
    assert.match(missing.detail, /does not exist/);
    assert.match(missing.fix ?? '', /correct "cwd" in mcp\.json/);
    const file = path.join(dir(), 'f.txt');
    fs.writeFileSync(file, 'x');
    assert.equal(checkCwd(file, 'f.txt', tmp, 'mcp.json').status, 'fail');
    assert.equal(checkCwd(tmp, '.', tmp, 'mcp.json').status, 'pass');
    const unset = checkCwd(undefined, undefined, '/somewhere', 'mcp.json');
    assert.equal(unset.status, 'skip');
    assert.match(unset.detail, /starts in \/somewhere/);
  });

  test('envFile: unreadable fails; readable names its variables, never their values', () => {
    const missing = checkEnvFile(path.join(tmp, 'no.env'), 'no.env', 'mcp.json');
    assert.equal(missing.check.status, 'fail');
    assert.match(missing.check.detail, /does not exist/);
    const file = path.join(dir(), '.env');
    fs.writeFileSync(file, 'API_TOKEN=sekret-value-123\nREGION=eu-west\n');
    const read = checkEnvFile(file, '.env', 'mcp.json');
    assert.equal(read.check.status, 'pass');
    assert.match(read.check.detail, /sets 2 variables \(API_TOKEN, REGION\)/);
    assert.doesNotMatch(read.check.detail, /sekret|eu-west/);
    assert.deepEqual(read.values, { API_TOKEN: 'sekret-value-123', REGION: 'eu-west' });
  });
});

describe('doctor: variables', () => {
  const stdio = (overrides: Partial<Extract<ServerDefinition, { type: 'stdio' }>> = {}, folder?: string): ServerDefinition => ({
    type: 'stdio',
    name: 'svc',
    command: 'node',
    args: [],
    env: {},
    source: source(path.join(tmp, 'mcp.json'), folder),
    ...overrides,
  });

  test('an unset ${env:} warns and a set one passes, without printing either value', async () => {
    const def = stdio({ env: { TOKEN: '${env:DOCTOR_SET_TOKEN}', OTHER: '${env:DOCTOR_UNSET}' } });
    const result = await resolveVariables(def, environment({ processEnv: { DOCTOR_SET_TOKEN: 'tok-very-secret-42' } }));
    assert.equal(result.check.status, 'warn');
    assert.match(result.check.detail, /\$\{env:DOCTOR_SET_TOKEN\} is set\./);
    assert.match(result.check.detail, /\$\{env:DOCTOR_UNSET\} is not set in the environment/);
    assert.match(result.check.fix ?? '', /Set DOCTOR_UNSET in the environment/);
    assert.doesNotMatch(JSON.stringify(result.check), /tok-very-secret-42/);
  });

  test('${input:}: undeclared fails; declared without a stored value warns; stored passes and is never shown', async () => {
    const inputs: InputDefinition[] = [{ id: 'key', type: 'promptString', password: true, description: 'API key' }];
    const def = stdio({ args: ['--key', '${input:key}', '${input:ghost}'] });
    const undeclared = await resolveVariables(def, environment({ inputs }));
    assert.equal(undeclared.check.status, 'fail');
    assert.match(undeclared.check.detail, /no input with id "ghost" is declared/);
    assert.match(undeclared.check.fix ?? '', /Declare it in "inputs"/);

    const one = stdio({ args: ['--key', '${input:key}'] });
    const notStored = await resolveVariables(one, environment({ inputs }));
    assert.equal(notStored.check.status, 'warn');
    assert.match(notStored.check.detail, /\$\{input:key\} \(API key\) has no stored value/);
    assert.equal(notStored.check.fix, 'Start the server to be asked.');
    assert.equal(notStored.substitute('${input:key}'), undefined, 'no value: nothing to start with');

    const stored = await resolveVariables(one, environment({ inputs }, { key: 'in-secret-value-9' }));
    assert.equal(stored.check.status, 'pass');
    assert.match(stored.check.detail, /has a stored value/);
    assert.doesNotMatch(JSON.stringify(stored.check), /in-secret-value-9/);
    assert.equal(stored.substitute('${input:key}'), 'in-secret-value-9');
  });

  test('${workspaceFolder} outside a workspace and an unknown variable fail; no variables is a skip', async () => {
    const result = await resolveVariables(stdio({ cwd: '${workspaceFolder}/x', args: ['${nonsense}'] }), environment());
    assert.equal(result.check.status, 'fail');
    assert.match(result.check.detail, /does not belong to a workspace folder/);
    assert.match(result.check.detail, /unknown variable \$\{nonsense\}/);
    assert.equal((await resolveVariables(stdio(), environment())).check.status, 'skip');
  });
});

describe('doctor: npx and uvx', () => {
  test('which package the arguments name, and whether a version is pinned', () => {
    assert.deepEqual(packageRunOf('npx', ['-y', '@scope/server@1.2.3', '--flag']), { runner: 'npx', spec: '@scope/server@1.2.3', name: '@scope/server', pinned: '1.2.3' });
    assert.deepEqual(packageRunOf('/usr/bin/npx', ['--yes', '@scope/server']), { runner: 'npx', spec: '@scope/server', name: '@scope/server', pinned: undefined });
    assert.equal(packageRunOf('npx.cmd', ['-y', 'pkg@latest'])?.pinned, undefined, 'a tag is not a pin');
    assert.equal(packageRunOf('npx', ['--package=tools@2.0.0', 'tool-bin'])?.name, 'tools');
    assert.deepEqual(packageRunOf('uvx', ['--from', 'mcp-server-git==0.6.2', 'mcp-server-git']), { runner: 'uvx', spec: 'mcp-server-git==0.6.2', name: 'mcp-server-git', pinned: '0.6.2' });
    assert.equal(packageRunOf('uvx', ['mcp-server-fetch@latest'])?.pinned, undefined);
    assert.equal(packageRunOf('node', ['x.js']), undefined);
  });

  test('the version in npx\'s cache is found by the package list npx wrote', () => {
    const cache = dir();
    const folder = path.join(cache, '_npx', '0123456789abcdef');
    fs.mkdirSync(path.join(folder, 'node_modules', '@scope', 'server'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ _npx: { packages: ['@scope/server'] } }));
    fs.writeFileSync(path.join(folder, 'node_modules', '@scope', 'server', 'package.json'), JSON.stringify({ version: '3.1.4' }));
    assert.deepEqual(npxCachedVersion(cache, '@scope/server', '@scope/server'), { version: '3.1.4', folder });
    assert.equal(npxCachedVersion(cache, '@scope/server@2', '@scope/server'), undefined, 'another spec is another install');
    assert.equal(npxCachedVersion(path.join(cache, 'none'), '@scope/server', '@scope/server'), undefined);
  });

  test('the registry: a missing package fails, no answer warns (never a failure), a pin needs no lookup', async () => {
    const cwd = dir();
    const env = { npm_config_cache: dir() };
    const base = { env, platform: process.platform, cwd, file: 'mcp.json' };
    const missing = await checkPackage({ ...base, run: packageRunOf('npx', ['-y', 'no-such-pkg'])!, latest: () => Promise.resolve({ kind: 'missing' }) });
    assert.equal(missing.status, 'fail');
    assert.match(missing.detail, /no package named no-such-pkg/);
    const slow = await checkPackage({ ...base, run: packageRunOf('npx', ['-y', 'some-pkg'])!, latest: () => Promise.resolve({ kind: 'unknown', reason: 'npm view did not answer within 10 ms' }) });
    assert.equal(slow.status, 'warn');
    assert.match(slow.detail, /did not answer within 10 ms/);
    const latest = await checkPackage({ ...base, run: packageRunOf('npx', ['-y', 'some-pkg'])!, latest: () => Promise.resolve({ kind: 'found', version: '9.9.9' }) });
    assert.equal(latest.status, 'pass');
    assert.match(latest.detail, /npx downloads 9\.9\.9/);
    let asked = false;
    const pinned = await checkPackage({ ...base, run: packageRunOf('npx', ['-y', 'some-pkg@1.0.0'])!, latest: () => ((asked = true), Promise.resolve({ kind: 'missing' })) });
    assert.equal(pinned.status, 'pass');
    assert.equal(asked, false);
  });
});

describe('doctor: authentication probe', () => {
  async function serve(handler: http.RequestListener): Promise<{ url: URL; close: () => Promise<void> }> {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  const probe = { type: 'http' as const, headers: {}, file: 'mcp.json', timeoutMs: 3000, signInHint: 'Use Sign In.', clientInfo: { name: 't', version: '0' } };

  test('401 with a Bearer challenge: wants OAuth; a held token passes, none fails with the sign-in hint', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1/meta", scope="mcp:read"' }).end();
    });
    try {
      const none = await checkAuthentication({ ...probe, url: s.url, tokenHeld: () => Promise.resolve(false) });
      assert.equal(none.check.status, 'fail');
      assert.equal(none.needsSignIn, true);
      assert.match(none.check.detail, /wants OAuth sign-in \(401; resource metadata at http:\/\/127\.0\.0\.1\/meta; scopes mcp:read\)\. No token is held/);
      assert.equal(none.check.fix, 'Use Sign In.');
      const held = await checkAuthentication({ ...probe, url: s.url, tokenHeld: () => Promise.resolve(true) });
      assert.equal(held.check.status, 'pass');
      assert.match(held.check.detail, /A token is held/);
    } finally {
      await s.close();
    }
  });

  test('401 without a challenge wants other credentials; 200 asks none; 404 is the wrong path; a closed port is unreachable', async () => {
    let status = 401;
    const s = await serve((_req, res) => res.writeHead(status).end());
    try {
      const other = await checkAuthentication({ ...probe, url: s.url, tokenHeld: () => Promise.resolve(undefined) });
      assert.equal(other.check.status, 'fail');
      assert.match(other.check.fix ?? '', /"headers"/);
      status = 200;
      assert.equal((await checkAuthentication({ ...probe, url: s.url, tokenHeld: () => Promise.resolve(undefined) })).check.status, 'pass');
      // With credentials configured, the texts say they were sent (and were wrong, or were accepted).
      const withKey = { ...probe, url: s.url, headers: { 'X-Api-Key': 'k-123' }, tokenHeld: () => Promise.resolve(undefined) };
      assert.match((await checkAuthentication(withKey)).check.detail, /accepted the credentials in "headers" \(it answered 200\)/);
      status = 401;
      const rejected = await checkAuthentication(withKey);
      assert.equal(rejected.check.status, 'fail');
      assert.match(rejected.check.detail, /401 Unauthorized to the credentials in "headers"/);
      assert.match(rejected.check.fix ?? '', /Check the credentials in "headers"/);
      status = 404;
      const notFound = await checkAuthentication({ ...probe, url: s.url, tokenHeld: () => Promise.resolve(undefined) });
      assert.equal(notFound.check.status, 'fail');
      assert.match(notFound.check.fix ?? '', /\/mcp \(Streamable HTTP\) or \/sse/);
    } finally {
      await s.close();
    }
    const gone = await serve((_req, res) => res.end());
    await gone.close();
    const closed = await checkAuthentication({ ...probe, url: gone.url, tokenHeld: () => Promise.resolve(undefined) });
    assert.equal(closed.reachable, false);
    assert.match(closed.check.detail, /could not be reached \(ECONNREFUSED\)/);
  });

  test("403 with a reason of the server's own (#23): the reason is shown, no advice to add an Authorization header", async () => {
    const s = await serve((_req, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('Access is only allowed at localhost:4321'));
    try {
      for (const headers of [{}, { 'X-Api-Key': 'k-123' }] as Record<string, string>[]) {
        const forbidden = await checkAuthentication({ ...probe, url: s.url, headers, tokenHeld: () => Promise.resolve(undefined) });
        assert.equal(forbidden.check.status, 'fail');
        assert.match(forbidden.check.detail, /403 Forbidden: "Access is only allowed at localhost:4321"/);
        assert.doesNotMatch(forbidden.check.fix ?? '', /Authorization/);
        assert.equal(forbidden.needsSignIn, false);
      }
    } finally {
      await s.close();
    }
  });

  test('a redirect to another origin is not followed: the configured headers stay home', async () => {
    let leaked = 0;
    const other = await serve((req, res) => {
      if (req.headers['x-api-key'] !== undefined) leaked++;
      res.writeHead(200).end();
    });
    const s = await serve((_req, res) => res.writeHead(307, { location: `${other.url.origin}/mcp?sig=abc` }).end());
    try {
      const redirected = await checkAuthentication({ ...probe, url: s.url, headers: { 'X-Api-Key': 'k-123' }, tokenHeld: () => Promise.resolve(undefined) });
      assert.equal(redirected.check.status, 'fail');
      assert.match(redirected.check.detail, new RegExp(`redirected to another origin, ${other.url.origin.replace(/[.]/g, '\\.')};`));
      assert.doesNotMatch(redirected.check.detail, /sig=abc/);
      assert.equal(leaked, 0);
    } finally {
      await s.close();
      await other.close();
    }
  });
});

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe('doctor: TLS', { skip: !hasOpenssl && 'needs openssl to make a certificate' }, () => {
  test('a self-signed certificate: the handshake is described, with its expiry, and it fails as not trusted', async () => {
    const folder = dir();
    const [key, cert] = [path.join(folder, 'key.pem'), path.join(folder, 'cert.pem')];
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '5', '-subj', '/CN=doctor.test', '-keyout', key, '-out', cert], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_req, res) => res.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
      const check = await checkTls(url, 'mcp.json', 3000);
      assert.equal(check.status, 'fail');
      assert.match(check.detail, /^Certificate for doctor\.test.*, valid until \d{4}-\d\d-\d\d\. It is not trusted: DEPTH_ZERO_SELF_SIGNED_CERT\.$/);
      assert.match(check.fix ?? '', /NODE_EXTRA_CA_CERTS/);
      const plain = await checkTls(new URL('http://127.0.0.1/mcp'), 'mcp.json', 3000);
      assert.equal(plain.status, 'skip');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('doctor: diagnoseServer', () => {
  test('a configuration problem: the config line fails naming the field and line; nothing else is tried', async () => {
    const report = await diagnoseServer({ name: 'bad', source: source('/w/.vscode/mcp.json'), problem: { message: 'Server "bad": "args" must be an array of strings.', field: 'servers.bad.args', line: 7 } }, environment());
    assert.equal(report.verdict, 'fail');
    assert.deepEqual(report.checks.map((c) => c.id), ['config']);
    assert.match(report.checks[0].detail, /"servers\.bad\.args": Server "bad": "args" must be an array/);
    assert.match(report.checks[0].fix ?? '', /Fix "servers\.bad\.args" in \/w\/\.vscode\/mcp\.json:7/);
    assert.match(report.summary, /^Configuration valid: Fix/);
  });

  test('a healthy server: every line, the handshake with era, version, capabilities and stderr', async () => {
    const def: ServerDefinition = { type: 'stdio', name: 'good', command: process.execPath, args: [fixture('good-server.mjs')], env: {}, source: source() };
    const report = await diagnoseServer({ name: 'good', source: def.source, definition: def }, environment());
    assert.equal(report.verdict, 'pass', formatReportText(report));
    assert.deepEqual(report.checks.map((c) => c.id), ['config', 'variables', 'command', 'cwd', 'envFile', 'handshake']);
    const handshake = report.checks.at(-1)!;
    assert.match(handshake.detail, /^Ready in \d+ ms: good-server 1\.2\.3, protocol 2025-11-25 \(legacy era: initialize\)\. Capabilities: tools, resources, prompts/);
    assert.match(handshake.detail, /First stderr lines: good-server: started/);
  });

  test('a file with a JSON syntax error now: the config line warns (as at its last valid save, the error and line), the other checks still run', async () => {
    const def: ServerDefinition = { type: 'stdio', name: 'good', command: process.execPath, args: [fixture('good-server.mjs')], env: {}, source: source('/w/.vscode/mcp.json') };
    const unappliedFile = { message: 'JSON syntax error: a comma is missing. Changes to this file are not applied until it is fixed; its servers keep running as configured at its last valid save.', line: 12 };
    const report = await diagnoseServer({ name: 'good', source: def.source, definition: def, unappliedFile }, environment());
    const config = report.checks[0];
    assert.equal(config.status, 'warn');
    assert.match(config.detail, /^\/w\/\.vscode\/mcp\.json:12: JSON syntax error: a comma is missing\. .* This server is stdio\.$/);
    assert.match(config.fix ?? '', /^Fix the JSON syntax at \/w\/\.vscode\/mcp\.json:12; until then the checks below are of the file as at its last valid save\.$/);
    assert.equal(report.verdict, 'warn');
    assert.deepEqual(report.checks.map((c) => c.id), ['config', 'variables', 'command', 'cwd', 'envFile', 'handshake']);
    assert.equal(report.checks.at(-1)!.status, 'pass');
  });

  test('an untrusted workspace\'s server: nothing is started, fetched or sent; the static checks still run', async () => {
    let requests = 0;
    const listener = http.createServer((_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    try {
      const port = (listener.address() as AddressInfo).port;
      const remote: ServerDefinition = { type: 'http', name: 'remote', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${input:tok}' }, source: source() };
      const untrusted = 'the workspace is not trusted';
      const r1 = await diagnoseServer({ name: 'remote', source: remote.source, definition: remote }, environment({ untrusted, inputs: [{ id: 'tok', type: 'promptString', password: true }] }, { tok: 'stored-token-value-123' }));
      assert.equal(requests, 0, 'no request reached the server');
      assert.deepEqual(r1.checks.map((c) => [c.id, c.status]), [['config', 'pass'], ['trust', 'warn'], ['variables', 'pass'], ['dns', 'skip'], ['tls', 'skip'], ['auth', 'skip'], ['handshake', 'skip']]);
      const marker = path.join(dir(), 'started');
      const local: ServerDefinition = { type: 'stdio', name: 'local', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`], env: {}, source: source() };
      const r2 = await diagnoseServer({ name: 'local', source: local.source, definition: local }, environment({ untrusted }));
      assert.equal(fs.existsSync(marker), false, 'the command was not run');
      assert.equal(r2.checks.find((c) => c.id === 'command')?.status, 'pass', 'the command is still looked up');
      assert.equal(r2.checks.find((c) => c.id === 'handshake')?.status, 'skip');
      assert.match(r2.checks.find((c) => c.id === 'trust')?.fix ?? '', /Manage Workspace Trust/);
    } finally {
      listener.close();
    }
  });

  test("an untrusted workspace's server: the login shell is not run to find its command (a trusted one's is)", { skip: !posix && 'POSIX login shell' }, async () => {
    const shellDir = dir();
    const ranFile = path.join(shellDir, 'shell-ran');
    const loginBin = dir();
    program(loginBin, 'only-on-login-xyz');
    // A "login shell" that leaves a mark when it runs and adds a folder to the PATH, as a profile would.
    const shell = path.join(shellDir, 'marking-shell');
    fs.writeFileSync(shell, `#!/bin/sh\necho ran >> ${JSON.stringify(ranFile)}\nPATH=${loginBin}:$PATH\nexport PATH\nexec /bin/sh -c "$2"\n`, { mode: 0o755 });
    const def: ServerDefinition = { type: 'stdio', name: 'login-only', command: 'only-on-login-xyz', args: [], env: {}, source: source() };
    // No loginShellPath given: the doctor would run $SHELL -ilc itself.
    const withShell = (untrusted?: string) => environment({ processEnv: { PATH: '/usr/bin:/bin', SHELL: shell }, loginShellPath: undefined, ...(untrusted ? { untrusted } : {}) });
    const untrusted = await diagnoseServer({ name: def.name, source: def.source, definition: def }, withShell('the workspace is not trusted'));
    assert.equal(fs.existsSync(ranFile), false, 'the login shell ran for an untrusted workspace');
    const command = untrusted.checks.find((c) => c.id === 'command')!;
    assert.equal(command.status, 'fail');
    assert.match(command.detail, /login shell was not asked/);
    const trusted = await diagnoseServer({ name: def.name, source: def.source, definition: def }, withShell());
    assert.equal(fs.existsSync(ranFile), true, 'a trusted server still gets the login shell lookup');
    assert.match(trusted.checks.find((c) => c.id === 'command')!.detail, /your login shell finds it at/);
  });

  test('secrets from the environment, envFile and stored inputs never reach the report, even when the server prints them', async () => {
    const envFile = path.join(dir(), 'secrets.env');
    fs.writeFileSync(envFile, 'FILE_API_KEY=envfile-secret-value-77\n');
    const def: ServerDefinition = {
      type: 'stdio',
      name: 'leaky',
      command: process.execPath,
      args: [fixture('leak-secrets.mjs'), '--token', '${input:tok}'],
      env: { LEAK_ENV: 'FROM_ENV_TOKEN,FILE_API_KEY', LEAK_FAIL: '1', FROM_ENV_TOKEN: '${env:DOCTOR_PROCESS_TOKEN}' },
      envFile,
      source: source(),
    };
    const inputs: InputDefinition[] = [{ id: 'tok', type: 'promptString', password: true }];
    const report = await diagnoseServer(
      { name: 'leaky', source: def.source, definition: def },
      environment({ inputs, processEnv: { PATH: process.env.PATH, DOCTOR_PROCESS_TOKEN: 'process-secret-value-55' } }, { tok: 'input-secret-value-66' }),
    );
    assert.equal(report.verdict, 'fail', 'LEAK_FAIL makes it exit before the handshake');
    const handshake = report.checks.find((c) => c.id === 'handshake')!;
    assert.match(handshake.detail, /exited before answering initialize/);
    assert.match(handshake.detail, /leak: argv --token \*\*\*/, 'what it said is shown, redacted');
    const text = allText(report);
    for (const secret of ['process-secret-value-55', 'input-secret-value-66', 'envfile-secret-value-77']) assert.ok(!text.includes(secret), `${secret} leaked:\n${text}`);
  });

  test('a missing module: the handshake fails with Node\'s error and says to install the dependencies', async () => {
    const def: ServerDefinition = { type: 'stdio', name: 'mm', command: process.execPath, args: [fixture('missing-module.cjs')], env: {}, source: source() };
    const report = await diagnoseServer({ name: 'mm', source: def.source, definition: def }, environment());
    const handshake = report.checks.find((c) => c.id === 'handshake')!;
    assert.equal(handshake.status, 'fail');
    assert.match(handshake.detail, /Cannot find module/);
    assert.match(handshake.fix ?? '', /A module is missing: install the server's dependencies/);
  });

  test('the Markdown has a verdict, one line per check, fixes under failed lines, and escapes Markdown in texts', () => {
    const report: DoctorReport = {
      server: 'my_server',
      source: '/w/mcp.json',
      transport: 'stdio',
      verdict: 'fail',
      summary: 'Command found: Install *it*.',
      checks: [
        { id: 'config', title: 'Configuration valid', status: 'pass', detail: 'Read from /w/mcp.json.' },
        { id: 'command', title: 'Command found', status: 'fail', detail: '"x_y" was not found.', fix: 'Install *it*.' },
        { id: 'cwd', title: 'Working directory exists', status: 'skip', detail: 'Not set.' },
      ],
    };
    const md = formatReportMarkdown(report);
    assert.match(md, /^# Diagnosis of "my\\_server"$/m);
    assert.match(md, /^\*\*Verdict: ✖ fails\.\*\* Command found: Install \\\*it\\\*\.$/m);
    assert.match(md, /^- ✖ \*\*Command found\*\* — "x\\_y" was not found\.\n {2}- \*\*Fix:\*\* Install \\\*it\\\*\.$/m);
    assert.match(md, /^- – \*\*Working directory exists\*\*/m);
    const text = formatReportText(report);
    assert.match(text, /^✖ my_server \(stdio, \/w\/mcp\.json\): fails\n {2}✔ Configuration valid/);
    assert.match(text, /^ {2}✖ Command found: "x_y" was not found\.\n {6}fix: Install \*it\*\.$/m);
  });
});
