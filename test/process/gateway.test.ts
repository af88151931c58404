// `mcp-host serve` driven by the official TypeScript SDK client, an independent peer: the gateway's
// Streamable HTTP, its session rules, and its relaying to one real server process per server.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING } from '../helpers/servers';
import { REPO_ROOT, fixture } from '../helpers/paths';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

interface Serving {
  child: ChildProcess;
  urls: Map<string, string>;
  token: string;
  stderr: string[];
}

async function serve(configFile: string, tokenFile: string): Promise<Serving> {
  const child = spawn(process.execPath, [CLI, 'serve', '--config', configFile, '--token-file', tokenFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`mcp-host serve exited with ${code}: ${stderr.join('')}`)));
  });
  const urls = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [name, url] = line.split('\t');
    if (url?.startsWith('http://127.0.0.1:')) urls.set(name, url);
  }
  return { child, urls, token: fs.readFileSync(tokenFile, 'utf8').trim(), stderr };
}

function sdkClient(name: string, capabilities: Record<string, unknown> = {}): Client {
  return new Client({ name, version: '1.0.0' }, { capabilities });
}

function transport(url: string, token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
}

/**
 * The children of `parent` whose command line names `needle` (the servers the gateway shares).
 * Only its children: test files run side by side, and others start the same fixture servers.
 */
function childPids(parent: ChildProcess, needle: string): number[] {
  const out = execFileSync('ps', ['-eo', 'ppid=,pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([ppid, , ...args]) => ppid === String(parent.pid) && args.join(' ').includes(needle))
    .map(([, pid]) => Number(pid));
}

/** fetch() cannot set Host: a raw request, as a page reached through a rebound DNS name would send it. */
function statusWithHost(url: string, host: string, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { Host: host, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('mcp-host serve: the gateway with the SDK client as its peer', () => {
  let dir: string;
  let s: Serving;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
    const config = {
      servers: {
        everything: { type: 'stdio', command: process.execPath, args: EVERYTHING },
        good: { type: 'stdio', command: process.execPath, args: [fixture('good-server.mjs')] },
      },
    };
    fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify(config));
    s = await serve(path.join(dir, 'mcp.json'), path.join(dir, 'token'));
  });

  after(async () => {
    s?.child.kill('SIGINT');
    if (s && s.child.exitCode === null) await new Promise((r) => s.child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('prints one endpoint per server and writes the generated token owner-only', () => {
    assert.deepEqual([...s.urls.keys()].sort(), ['everything', 'good']);
    assert.match(s.urls.get('everything')!, /^http:\/\/127\.0\.0\.1:\d+\/servers\/everything\/mcp$/);
    assert.equal(fs.statSync(path.join(dir, 'token')).mode & 0o777, 0o600);
    assert.ok(s.token.length >= 40);
  });

  test('list, call, read, prompts, completion through the gateway', async () => {
    const client = sdkClient('test-agent');
    await client.connect(transport(s.urls.get('everything')!, s.token));
    try {
      assert.match(client.getServerVersion()!.name, /everything/i);
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'echo'));
      const echoed = await client.callTool({ name: 'echo', arguments: { message: 'through the gateway' } });
      assert.match(JSON.stringify(echoed.content), /through the gateway/);
      const resources = await client.listResources();
      assert.ok(resources.resources.length > 0);
      const read = await client.readResource({ uri: resources.resources[0].uri });
      assert.ok(read.contents.length > 0);
      const prompts = await client.listPrompts();
      assert.ok(prompts.prompts.some((p) => p.name === 'completable-prompt'));
      const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'Eng' } });
      assert.deepEqual(completion.completion.values, ['Engineering']);
      const prompt = await client.getPrompt({ name: 'completable-prompt', arguments: { department: 'Engineering', name: 'Alice' } });
      assert.ok(prompt.messages.length > 0);
    } finally {
      await client.close();
    }
  });

  test('progress reaches the client under its own token; cancellation stops the call', async () => {
    const client = sdkClient('progress-client');
    await client.connect(transport(s.urls.get('everything')!, s.token));
    try {
      const updates: number[] = [];
      await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } }, undefined, {
        onprogress: (p) => updates.push(p.progress),
      });
      assert.deepEqual(updates, [1, 2, 3]);
      const abort = new AbortController();
      const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, { signal: abort.signal, onprogress: () => abort.abort() });
      await assert.rejects(call, /abort/i);
      // The session is still usable after the cancellation.
      await client.ping();
    } finally {
      await client.close();
    }
  });

  test("the server's sampling and elicitation requests are answered by the client that caused them", async () => {
    const client = sdkClient('answering-client', { sampling: {}, elicitation: {} });
    const seen: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      seen.push('sampling');
      return { role: 'assistant', content: { type: 'text', text: 'sampled through the gateway' }, model: 'peer-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      seen.push('elicitation');
      return { action: 'decline' };
    });
    await client.connect(transport(s.urls.get('everything')!, s.token));
    try {
      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
      assert.match(JSON.stringify(sampled.content), /sampled through the gateway/);
      const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.match(JSON.stringify(elicited.content), /decline/i);
      assert.deepEqual(seen, ['sampling', 'elicitation']);
    } finally {
      await client.close();
    }
  });

  test('two clients at once share one server process; list_changed reaches both', async () => {
    const before = childPids(s.child, fixture('good-server.mjs')).length;
    assert.equal(before, 1, 'one good-server process before any client');
    const a = sdkClient('client-a');
    const b = sdkClient('client-b');
    await a.connect(transport(s.urls.get('good')!, s.token));
    await b.connect(transport(s.urls.get('good')!, s.token));
    try {
      const changed = new Promise<void>((resolve) => b.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      // The GET stream (for list_changed) is opened by the SDK after initialized; give it a moment to attach.
      await new Promise((r) => setTimeout(r, 300));
      const [ra, rb] = await Promise.all([a.callTool({ name: 'echo', arguments: { text: 'a' } }), b.callTool({ name: 'echo', arguments: { text: 'b' } })]);
      assert.match(JSON.stringify(ra.content), /"a"/);
      assert.match(JSON.stringify(rb.content), /"b"/);
      await a.callTool({ name: 'toggle', arguments: {} });
      await changed;
      assert.equal(childPids(s.child, fixture('good-server.mjs')).length, 1, 'still one good-server process with two clients');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('no token: 401; a wrong Origin or Host: 403; an unknown session: 404; DELETE ends a session', async () => {
    const url = s.urls.get('good')!;
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    assert.equal((await fetch(url, { method: 'POST', headers, body: init })).status, 401);
    assert.equal((await fetch(url, { method: 'POST', headers: { ...headers, Authorization: 'Bearer wrong-token' }, body: init })).status, 401);
    const auth = { ...headers, Authorization: `Bearer ${s.token}` };
    assert.equal((await fetch(url, { method: 'POST', headers: { ...auth, Origin: 'https://evil.example' }, body: init })).status, 403);
    assert.equal((await fetch(url.replace('127.0.0.1', 'localhost'), { method: 'POST', headers: { ...auth, Origin: 'http://localhost:1234' }, body: init })).status, 200);
    assert.equal(await statusWithHost(url, 'attacker.example:80', s.token, init), 403, 'a rebound DNS name in Host is refused');
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    assert.equal((await fetch(url, { method: 'POST', headers: { ...auth, 'Mcp-Session-Id': 'no-such-session' }, body: ping })).status, 404);
    const started = await fetch(url, { method: 'POST', headers: auth, body: init });
    const session = started.headers.get('mcp-session-id')!;
    assert.ok(session);
    assert.equal(((await started.json()) as { result: { protocolVersion: string } }).result.protocolVersion, '2025-06-18');
    assert.equal((await fetch(url, { method: 'DELETE', headers: { ...auth, 'Mcp-Session-Id': session } })).status, 200);
    assert.equal((await fetch(url, { method: 'POST', headers: { ...auth, 'Mcp-Session-Id': session }, body: ping })).status, 404);
  });

  test('the server crashing underneath: the client gets an error, the gateway survives, the restarted server answers', async () => {
    const client = sdkClient('crash-client');
    await client.connect(transport(s.urls.get('good')!, s.token));
    try {
      const [pid] = childPids(s.child, fixture('good-server.mjs'));
      assert.ok(pid, 'the gateway runs good-server');
      const pending = client.callTool({ name: 'slow', arguments: { ms: 10_000 } });
      await new Promise((r) => setTimeout(r, 200));
      process.kill(pid, 'SIGKILL');
      await assert.rejects(pending, /not running|closed|error|stopp|crash/i);
      // The restart policy starts it again after about a second.
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          const again = await client.callTool({ name: 'echo', arguments: { text: 'back' } });
          assert.match(JSON.stringify(again.content), /back/);
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      assert.equal(s.child.exitCode, null, 'the gateway is still running');
    } finally {
      await client.close();
    }
  });
});

describe('mcp-host serve: the token', () => {
  let dir: string;
  let config: string;

  /** Runs serve until it is ready (then stops it) or exits: what it printed and how it ended. */
  async function run(args: string[]): Promise<{ ready: boolean; code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [CLI, 'serve', '--config', config, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('ready\n')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (ready) child.kill('SIGINT');
    return { ready, code: await exited, stderr };
  }

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-token-'));
    config = path.join(dir, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ servers: { good: { type: 'stdio', command: process.execPath, args: [fixture('good-server.mjs')] } } }));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a token file open to other users is refused, naming the file and chmod 600; an owner-only one is used', { skip: process.platform === 'win32' }, async () => {
    const planted = path.join(dir, 'planted-token');
    fs.writeFileSync(planted, 'a-token-someone-else-knows-0123456789\n');
    fs.chmodSync(planted, 0o644);
    const refused = await run(['--token-file', planted]);
    assert.equal(refused.ready, false, 'the gateway did not start with the planted token');
    assert.equal(refused.code, 2);
    assert.ok(refused.stderr.includes(`the token file ${planted} is open to other users (mode 644)`), refused.stderr);
    assert.match(refused.stderr, /chmod 600/);
    fs.chmodSync(planted, 0o600);
    const used = await run(['--token-file', planted]);
    assert.equal(used.ready, true, used.stderr);
  });

  test('--token works and warns that other users can see it in the process list', async () => {
    const r = await run(['--token', 'a-token-on-the-command-line-0123']);
    assert.equal(r.ready, true, r.stderr);
    assert.match(r.stderr, /warning: --token is visible to other users of this machine in the process list; --token-file F/);
  });
});
