import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { EVERYTHING } from '../helpers/servers';
import { startEverythingHttp, type HttpServerProcess } from '../helpers/http';
import { scriptedBrowser, startAuthorizationServer, startResourceServer } from '../helpers/oauth-servers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI without blocking this process (the test's own HTTP servers must keep answering). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}, onStderr?: (text: string, child: ChildProcess) => void): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      onStderr?.(stderr, child);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

interface JsonCheck {
  id: string;
  title: string;
  status: 'pass' | 'fail' | 'warn' | 'skip';
  detail: string;
  fix?: string;
}
interface JsonReport {
  server: string;
  source: string;
  transport: string;
  verdict: string;
  summary: string;
  checks: JsonCheck[];
}

function parseJson(run: CliRun): { verdict: string; servers: JsonReport[] } {
  try {
    return JSON.parse(run.stdout) as { verdict: string; servers: JsonReport[] };
  } catch {
    throw new Error(`not JSON (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
}

function check(report: JsonReport | undefined, id: string): JsonCheck {
  const found = report?.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no ${id} check in ${JSON.stringify(report)}`);
  return found;
}

const node = process.execPath;

describe('mcp-host doctor (the built dist/cli.js)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-doctor-'));
  const configFile = path.join(tmp, '.vscode', 'mcp.json');
  const SECRET = 'doctor-process-secret-4711';

  before(() => {
    fs.mkdirSync(path.dirname(configFile));
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        servers: {
          everything: { command: node, args: EVERYTHING },
          missing: { command: 'mcp-host-doctor-no-such-command' },
          'missing-module': { command: node, args: [fixture('missing-module.cjs')] },
          'needs-env': { command: node, args: [fixture('needs-env.mjs')], env: { API_KEY: '${env:DOCTOR_TEST_API_KEY}', OTHER_TOKEN: '${env:DOCTOR_TEST_OTHER_TOKEN}' } },
          broken: { command: node, args: 'not-an-array' },
        },
      }),
    );
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('a healthy server: every line passes, the handshake says era, version, capabilities and time; exit 0', async () => {
    const r = await cli(['doctor', '--config', configFile, '--server', 'everything']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^✔ everything \(stdio, .*mcp\.json\): healthy$/m);
    assert.match(r.stdout, /^ {2}✔ Command found: ".*node" is /m);
    assert.match(r.stdout, /^ {2}✔ Handshake: Ready in \d+ ms: mcp-servers\/everything \S+, protocol 2025-11-25 \(legacy era: initialize\)\. Capabilities: tools, prompts, resources/m);
    assert.doesNotMatch(r.stdout, /fix:/);
  });

  test('every server of the file: a failing line for each fault, with its fix; --json shape; exit 3', async () => {
    const r = await cli(['doctor', '--config', configFile, '--json'], { DOCTOR_TEST_OTHER_TOKEN: SECRET, DOCTOR_TEST_API_KEY: '' });
    assert.equal(r.code, 3, r.stderr);
    const json = parseJson(r);
    assert.equal(json.verdict, 'fail');
    assert.deepEqual(json.servers.map((s) => [s.server, s.verdict]).sort(), [
      ['broken', 'fail'],
      ['everything', 'pass'],
      ['missing', 'fail'],
      ['missing-module', 'fail'],
      ['needs-env', 'fail'],
    ]);
    for (const report of json.servers) {
      assert.equal(report.source, configFile);
      for (const c of report.checks) {
        assert.ok(['pass', 'fail', 'warn', 'skip'].includes(c.status), JSON.stringify(c));
        assert.equal(typeof c.title, 'string');
        assert.equal(typeof c.detail, 'string');
        if (c.status === 'fail') assert.ok(c.fix, `a failed line has a fix: ${JSON.stringify(c)}`);
      }
    }
    const byName = (name: string) => json.servers.find((s) => s.server === name);

    const missing = byName('missing');
    assert.equal(check(missing, 'command').status, 'fail');
    assert.match(check(missing, 'command').detail, /"mcp-host-doctor-no-such-command" was not found\. PATH: /);
    assert.match(check(missing, 'command').fix!, /Install mcp-host-doctor-no-such-command, or put the absolute path of the program in "command"/);
    assert.equal(check(missing, 'handshake').status, 'skip');

    const module = byName('missing-module');
    assert.equal(check(module, 'handshake').status, 'fail');
    assert.match(check(module, 'handshake').detail, /exited before answering initialize: exited with code 1.*Cannot find module '\.\/lib\/no-such-module'/);
    assert.match(check(module, 'handshake').fix!, /A module is missing: install the server's dependencies/);

    const env = byName('needs-env');
    assert.equal(check(env, 'variables').status, 'warn');
    assert.match(check(env, 'variables').detail, /\$\{env:DOCTOR_TEST_API_KEY\} is set to an empty string/);
    assert.equal(check(env, 'handshake').status, 'fail');
    assert.match(check(env, 'handshake').detail, /needs-env: API_KEY is not set/);
    assert.match(check(env, 'handshake').fix!, /The server asks for API_KEY: give it in "env" of the server in .*mcp\.json/);

    const broken = byName('broken');
    assert.deepEqual(broken?.checks.map((c) => c.id), ['config']);
    assert.match(check(broken, 'config').detail, /"servers\.broken\.args": .*must be an array of strings/);
    assert.match(check(broken, 'config').fix!, /mcp\.json:\d+/, 'the line of the field');

    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET), 'an ${env:} value is never printed');
  });

  test('a server that needs an env var: an unset ${env:} is said; once set, the server is healthy', async () => {
    const unset = await cli(['doctor', '--config', configFile, '--server', 'needs-env'], { DOCTOR_TEST_API_KEY: undefined, DOCTOR_TEST_OTHER_TOKEN: SECRET });
    assert.equal(unset.code, 3, unset.stdout);
    assert.match(unset.stdout, /^ {2}⚠ Variables resolvable: .*\$\{env:DOCTOR_TEST_API_KEY\} is not set in the environment: it becomes an empty string\./m);
    assert.match(unset.stdout, /^ {6}fix: Set DOCTOR_TEST_API_KEY in the environment/m);
    assert.match(unset.stdout, /^ {2}✖ Handshake: .*needs-env: API_KEY is not set/m);
    const set = await cli(['doctor', '--config', configFile, '--server', 'needs-env'], { DOCTOR_TEST_API_KEY: SECRET, DOCTOR_TEST_OTHER_TOKEN: SECRET });
    assert.equal(set.code, 0, set.stdout);
    assert.match(set.stdout, /✔ Handshake: Ready in \d+ ms: needs-env 0\.0\.1/);
    assert.ok(!set.stdout.includes(SECRET) && !unset.stdout.includes(SECRET));
  });

  test('a command only on the login shell PATH: found there, with the absolute path to use', async () => {
    const loginBin = path.join(tmp, 'login-bin');
    fs.mkdirSync(loginBin);
    const tool = path.join(loginBin, 'doctor-login-only-tool');
    fs.writeFileSync(tool, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    // A "login shell" whose profile adds a folder to PATH, as nvm or Homebrew do.
    const shell = path.join(tmp, 'fake-login-shell');
    fs.writeFileSync(shell, `#!/bin/sh\necho "profile banner"\nPATH=${loginBin}:$PATH\nexport PATH\nexec /bin/sh -c "$2"\n`, { mode: 0o755 });
    const r = await cli(['doctor', '--', 'doctor-login-only-tool'], { SHELL: shell });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`✖ Command found: "doctor-login-only-tool" is not on the PATH the server gets, but your login shell finds it at ${tool}\\.`));
    assert.match(r.stdout, new RegExp(`Your login shell's PATH also has: ${loginBin}\\.`));
    assert.match(r.stdout, new RegExp(`fix: Use the absolute path in \\(command line\\): "command": "${tool}"; or start VS Code from a terminal`));
  });

  test('usage: an unknown server or option is exit 2 with one line; --help is exit 0', async () => {
    const unknown = await cli(['doctor', '--config', configFile, '--server', 'nope']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^mcp-host doctor: no server named "nope" in .*\(it has: everything, missing, missing-module, needs-env, broken\); see 'mcp-host doctor --help'\n$/);
    const option = await cli(['doctor', '--bogus']);
    assert.equal(option.code, 2);
    const help = await cli(['doctor', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: mcp-host doctor/);
    assert.match(help.stdout, /Exit status: 0 no check failed/);
  });

  describe('remote servers', () => {
    let streamable: HttpServerProcess;
    before(async () => {
      streamable = await startEverythingHttp('streamableHttp');
    });
    after(async () => {
      await streamable?.stop();
    });

    test('a Streamable HTTP server: no authentication asked, handshake over HTTP; exit 0', async () => {
      const r = await cli(['doctor', '--json', '--url', `http://127.0.0.1:${streamable.port}/mcp`]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const [report] = parseJson(r).servers;
      assert.equal(report.transport, 'http');
      assert.deepEqual(report.checks.map((c) => [c.id, c.status]), [
        ['config', 'pass'],
        ['variables', 'skip'],
        ['dns', 'skip'],
        ['tls', 'skip'],
        ['auth', 'pass'],
        ['handshake', 'pass'],
      ]);
      assert.match(check(report, 'auth').detail, /No authentication asked/);
      assert.match(check(report, 'handshake').detail, /Ready in \d+ ms: mcp-servers\/everything/);
    });

    test('an HTTP server that needs OAuth: says so and that no token is held, how to sign in; after a sign-in, a token is held and the handshake passes', async () => {
      const as = await startAuthorizationServer();
      const rs = await startResourceServer({ issuer: as.issuer, prm: 'header' });
      const tokenFile = path.join(tmp, 'tokens', 'oauth.json');
      try {
        const before = await cli(['doctor', '--url', rs.url], { MCP_HOST_TOKEN_FILE: tokenFile });
        assert.equal(before.code, 3, before.stdout + before.stderr);
        assert.match(before.stdout, /^ {2}✖ Authentication: The server wants OAuth sign-in \(401; resource metadata at http:\/\/127\.0\.0\.1:\d+\/meta\/prm\.json; scopes mcp:read\)\. No token is held for it\.$/m);
        assert.match(before.stdout, new RegExp(`fix: Sign in from a terminal: mcp-host list --url "${rs.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
        assert.match(before.stdout, /^ {2}– Handshake: Skipped: sign in first\.$/m);
        assert.ok(!fs.existsSync(tokenFile), 'the doctor never signs in by itself');

        // Sign in with the CLI (the scripted browser consents), then ask the doctor again.
        const browser = scriptedBrowser();
        let opened: Promise<void> | undefined;
        const signedIn = await cli(['list', '--url', rs.url], { MCP_HOST_TOKEN_FILE: tokenFile, MCP_HOST_SIGN_IN: '1' }, (stderr) => {
          const match = /^ {2}(http:\/\/\S+)$/m.exec(stderr);
          if (match && !opened) opened = browser.openBrowser(new URL(match[1]));
        });
        await opened;
        assert.equal(signedIn.code, 0, signedIn.stderr);

        const afterSignIn = await cli(['doctor', '--json', '--url', rs.url], { MCP_HOST_TOKEN_FILE: tokenFile });
        assert.equal(afterSignIn.code, 0, afterSignIn.stdout + afterSignIn.stderr);
        const [report] = parseJson(afterSignIn).servers;
        assert.equal(check(report, 'auth').status, 'pass');
        assert.match(check(report, 'auth').detail, /A token is held for it\./);
        assert.match(check(report, 'handshake').detail, /Ready in \d+ ms: protected-test-server 1\.0\.0, protocol 2025-06-18/);
        const tokens = rs.authorizations.filter((h): h is string => !!h).map((h) => h.replace(/^Bearer /, ''));
        assert.ok(tokens.length > 0);
        for (const token of tokens) assert.ok(!afterSignIn.stdout.includes(token) && !afterSignIn.stderr.includes(token), 'no token printed');
      } finally {
        await rs.stop();
        await as.stop();
      }
    });
  });
});
