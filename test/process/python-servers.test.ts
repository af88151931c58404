// Real dual-era servers written with the Python SDK 2.x (`mcp`) and fastmcp 4, in real processes,
// through our McpClient and through ServerConnection: both eras (auto picks modern for them;
// `protocolEra: 'legacy'` forces initialize), MRTR rounds answered by the handlers, list changes.
// The venv with the pinned packages is made by scripts/python-env.mjs (npm test runs it first;
// run alone, the set-up below does).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { McpClient, type ClientRequestHandlers } from '../../src/protocol/client';
import type { ProtocolEra, ProtocolEraSetting } from '../../src/protocol/era';
import type { MessageDirection } from '../../src/protocol/connection';
import { StdioTransport } from '../../src/transport/stdio';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';
import { McpSchemaValidator } from '../helpers/mcp-schema';
import { FIXTURES_DIR, REPO_ROOT } from '../helpers/paths';
import { recordingLogger, waitFor } from '../helpers/servers';

/** A fresh venv installs in about 30 s from the local mirror; an existing one answers at once. */
const VENV_TIMEOUT_MS = 5 * 60_000;
let python = '';

function pythonEnv(): string {
  const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'python-env.mjs'), '--print-python'], {
    encoding: 'utf8',
    timeout: VENV_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').pop()!;
}

const FIXTURES = [
  { name: 'sdk', script: 'sdk_server.py', serverName: 'sdk-fixture', listen: true },
  // fastmcp 4 serves no subscriptions/listen (see test/fixtures/python/README.md).
  { name: 'fastmcp', script: 'fastmcp_server.py', serverName: 'fastmcp-fixture', listen: false },
] as const;

type Fixture = (typeof FIXTURES)[number];

interface Session {
  client: McpClient;
  transport: StdioTransport;
  trace: Array<{ direction: MessageDirection; message: any }>;
  elicitations: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Answers the fixtures' questions: a name, then a colour. */
function answering(into: Array<Record<string, unknown>>): ClientRequestHandlers {
  return {
    elicit: async (params) => {
      into.push(params);
      const schema = params.requestedSchema as { properties: Record<string, unknown> };
      const field = Object.keys(schema.properties)[0];
      const message = String(params.message);
      return { action: 'accept', content: { [field]: message.includes('colour') ? 'blue' : 'Ada' } };
    },
  };
}

function startClient(fixture: Fixture, era: ProtocolEraSetting | undefined): Session {
  const trace: Session['trace'] = [];
  const elicitations: Session['elicitations'] = [];
  const transport = new StdioTransport({
    command: python,
    args: [path.join(FIXTURES_DIR, 'python', fixture.script)],
    // fastmcp's rich logging: plain lines, no colour codes.
    env: { NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
    shutdown: { closeStdinGraceMs: 1000, sigtermGraceMs: 1000 },
  });
  const client = new McpClient(
    transport,
    {
      label: `server '${fixture.name}'`,
      clientInfo: { name: 'mcp-host-tests', version: '0.0.0' },
      logger: recordingLogger([]),
      requestTimeoutMs: 20_000,
      protocolEra: era,
      onTrace: (direction, message) => trace.push({ direction, message: JSON.parse(JSON.stringify(message)) }),
    },
    answering(elicitations),
  );
  return {
    client,
    transport,
    trace,
    elicitations,
    async stop() {
      await client.close();
      client.dispose();
    },
  };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
const sent = (s: Session, method: string) => s.trace.filter((t) => t.direction === 'send' && t.message.method === method).map((t) => t.message);
const received = (s: Session, method: string) => s.trace.filter((t) => t.direction === 'receive' && t.message.method === method).map((t) => t.message);

describe('Python SDK 2.x and fastmcp 4 servers (real processes)', { timeout: VENV_TIMEOUT_MS + 180_000 }, () => {
  before(() => {
    python = pythonEnv();
  }, { timeout: VENV_TIMEOUT_MS + 10_000 });

  for (const fixture of FIXTURES) {
    for (const [setting, expected] of [
      [undefined, 'modern'],
      ['legacy', 'legacy'],
    ] as Array<[ProtocolEraSetting | undefined, ProtocolEra]>) {
      const what = `${fixture.name}, ${setting ? `protocolEra '${setting}'` : 'auto'}`;

      test(`${what}: speaks the ${expected} era; lists, calls, reads, prompts`, { timeout: 60_000 }, async () => {
        const s = startClient(fixture, setting);
        try {
          const init = await s.client.connect();
          assert.equal(s.client.era, expected);
          assert.equal(init.protocolVersion, expected === 'modern' ? '2026-07-28' : '2025-11-25');
          assert.equal(init.serverInfo.name, fixture.serverName);
          assert.match(init.instructions ?? '', /test fixture of MCP Host/);
          if (expected === 'modern') {
            assert.equal(sent(s, 'initialize').length, 0, 'no initialize in the modern era');
            assert.equal(sent(s, 'server/discover').length, 1);
          } else {
            assert.equal(sent(s, 'server/discover').length, 0, "'legacy' skips the probe");
            assert.equal(sent(s, 'initialize').length, 1);
          }

          const [tools, resources, templates, prompts] = await Promise.all([
            s.client.listAllTools(),
            s.client.listAllResources(),
            s.client.listAllResourceTemplates(),
            s.client.listAllPrompts(),
          ]);
          assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'add_tool', 'greet', 'profile']);
          assert.deepEqual(resources.map((r) => r.uri), ['fixture://readme']);
          assert.deepEqual(templates.map((t) => t.uriTemplate), ['fixture://items/{item_id}']);
          assert.deepEqual(prompts.map((p) => p.name), ['summarize']);

          assert.equal(text(await s.client.callTool('add', { a: 2, b: 3 })), '5');
          const readme = await s.client.readResource('fixture://readme');
          assert.match((readme.contents[0] as { text: string }).text, /This is the .* fixture\./);
          const item = await s.client.readResource('fixture://items/42');
          assert.equal((item.contents[0] as { text: string }).text, 'item 42');
          const prompt = await s.client.getPrompt('summarize', { topic: 'the eras' });
          assert.equal(prompt.messages[0].role, 'user');
          assert.equal((prompt.messages[0].content as { text: string }).text, 'Please summarize the eras.');

          if (expected === 'modern') {
            // Every request carries the era's _meta; no ping, no initialized.
            for (const t of s.trace.filter((m) => m.direction === 'send' && 'id' in m.message && m.message.method)) {
              assert.equal(t.message.params?._meta?.['io.modelcontextprotocol/protocolVersion'], '2026-07-28', `${t.message.method} carries the version`);
            }
            // The SDK server sends ttlMs/cacheScope on its lists; the client keeps them.
            const hints = s.client.cacheHints('tools/list');
            if (fixture.name === 'sdk') assert.deepEqual({ ttlMs: hints?.ttlMs, cacheScope: hints?.cacheScope }, { ttlMs: 60_000, cacheScope: 'private' });
          } else {
            assert.equal(s.client.cacheHints('tools/list'), undefined, 'legacy lists carry no caching hints');
          }
        } finally {
          await s.stop();
        }
      });

      test(`${what}: a tool that needs input (${expected === 'modern' ? 'MRTR input_required' : 'elicitation/create'}) gets it from the handler`, { timeout: 60_000 }, async () => {
        const s = startClient(fixture, setting);
        try {
          await s.client.connect();
          assert.equal(text(await s.client.callTool('greet')), 'Hello, Ada!');
          assert.equal(s.elicitations.length, 1);
          assert.match(String(s.elicitations[0].message), /What is your name\?/);
          const calls = sent(s, 'tools/call');
          if (expected === 'modern') {
            // Round 1 asks; round 2 is a new request (new id) with the answer.
            assert.equal(calls.length, 2);
            assert.notEqual(calls[0].id, calls[1].id);
            assert.ok(calls[1].params.inputResponses, 'the retry carries inputResponses');
            assert.equal(received(s, 'elicitation/create').length, 0, 'no server request in the modern era');
          } else {
            assert.equal(calls.length, 1);
            assert.equal(received(s, 'elicitation/create').length, 1);
          }
        } finally {
          await s.stop();
        }
      });

      test(`${what}: two rounds of input, requestState echoed byte for byte`, { timeout: 60_000 }, async () => {
        const s = startClient(fixture, setting);
        try {
          await s.client.connect();
          assert.equal(text(await s.client.callTool('profile')), 'Ada likes blue');
          assert.deepEqual(
            s.elicitations.map((e) => e.message),
            ['What is your name?', 'Ada, what is your favourite colour?'],
          );
          if (expected === 'modern') {
            const calls = sent(s, 'tools/call');
            assert.equal(calls.length, 3, 'ask, ask again, complete');
            assert.equal(new Set(calls.map((c) => c.id)).size, 3);
            // Each retry echoes the requestState of the answer before it, untouched.
            const answers = s.trace.filter((t) => t.direction === 'receive' && t.message.result?.resultType === 'input_required').map((t) => t.message.result);
            assert.equal(answers.length, 2);
            for (let i = 0; i < 2; i++) {
              if (answers[i].requestState !== undefined) assert.equal(calls[i + 1].params.requestState, answers[i].requestState);
              else assert.ok(!('requestState' in calls[i + 1].params));
            }
            assert.equal(calls[2].params.name, 'profile');
            assert.deepEqual(calls[2].params.arguments, {});
          }
        } finally {
          await s.stop();
        }
      });

      test(`${what}: a list change reaches the client's events`, { timeout: 60_000 }, async () => {
        const s = startClient(fixture, setting);
        try {
          await s.client.connect();
          let changes = 0;
          const listener = s.client.onToolsListChanged(() => changes++);
          if (expected === 'modern' && fixture.listen) {
            // The first listener opens the subscriptions/listen stream; wait for its acknowledgement.
            await waitFor(() => received(s, 'notifications/subscriptions/acknowledged').length === 1, 10_000, 'the listen acknowledgement');
          }
          await s.client.callTool('add_tool', { name: 'echo_added' });
          if (expected === 'modern' && !fixture.listen) {
            // fastmcp 4 has no subscriptions/listen: its notification rides the tools/call, outside
            // any listen stream, so the modern client does not count it. The next list shows the tool.
            assert.equal(received(s, 'notifications/tools/list_changed').length, 1);
            await new Promise((r) => setTimeout(r, 300));
            assert.equal(changes, 0);
          } else {
            await waitFor(() => changes > 0, 10_000, 'onToolsListChanged');
            if (expected === 'modern') {
              const note = received(s, 'notifications/tools/list_changed')[0];
              assert.equal(note.params._meta['io.modelcontextprotocol/subscriptionId'], sent(s, 'subscriptions/listen')[0].id);
            }
          }
          assert.ok((await s.client.listAllTools()).some((t) => t.name === 'echo_added'));
          listener.dispose();
        } finally {
          await s.stop();
        }
      });
    }

    test(`${fixture.name}: every message of a modern session validates against the 2026-07-28 schema`, { timeout: 60_000 }, async () => {
      const s = startClient(fixture, 'auto');
      try {
        await s.client.connect();
        const listener = s.client.onToolsListChanged(() => undefined);
        await Promise.all([s.client.listAllTools(), s.client.listAllResources(), s.client.listAllResourceTemplates(), s.client.listAllPrompts()]);
        await s.client.callTool('profile');
        await s.client.readResource('fixture://items/7');
        await s.client.getPrompt('summarize', { topic: 'schemas' });
        await s.client.callTool('add_tool', { name: 'echo_schema' });
        listener.dispose();
        const { problems, checked } = new McpSchemaValidator('2026-07-28').validateTranscript(s.trace);
        assert.ok(checked > 10, `checked ${checked} messages`);
        assert.deepEqual(problems, []);
      } finally {
        await s.stop();
      }
    });
  }

  describe('through ServerConnection (host floor)', () => {
    const source: ConfigSource = { file: path.join(FIXTURES_DIR, 'python', 'mcp.json'), kind: 'workspace', workspaceFolder: path.join(FIXTURES_DIR, 'python') };
    const definition = (fixture: Fixture, protocolEra?: ProtocolEraSetting): ServerDefinition => ({
      type: 'stdio',
      name: fixture.name,
      command: python,
      args: [path.join(FIXTURES_DIR, 'python', fixture.script)],
      env: { NO_COLOR: '1' },
      ...(protocolEra ? { protocolEra } : {}),
      source,
    });

    for (const fixture of FIXTURES) {
      for (const [setting, expected] of [
        [undefined, 'modern'],
        ['legacy', 'legacy'],
      ] as Array<[ProtocolEraSetting | undefined, ProtocolEra]>) {
        test(`${fixture.name}, ${setting ? `protocolEra '${setting}'` : 'auto'}: running state carries the era; lists load; Run Tool with input; list change refreshes`, { timeout: 60_000 }, async () => {
          const def = definition(fixture, setting);
          const elicitations: Array<Record<string, unknown>> = [];
          const logs: string[] = [];
          const c = new ServerConnection(def, serverId(def), def.name, def.source, testEnvironment(logs, { handlers: answering(elicitations), requestTimeoutMs: () => 20_000 }));
          try {
            await c.start();
            assert.equal(c.state.kind, 'running', 'message' in c.state ? c.state.message : c.state.kind);
            if (c.state.kind !== 'running') return;
            assert.equal(c.state.era, expected);
            assert.equal(c.state.protocolVersion, expected === 'modern' ? '2026-07-28' : '2025-11-25');
            assert.ok(logs.some((l) => l.includes(`(${expected} era)`)), 'the log says the era');
            assert.deepEqual(c.lists.tools.map((t) => t.name).sort(), ['add', 'add_tool', 'greet', 'profile']);
            assert.equal(c.lists.resources.length, 1);
            assert.equal(c.lists.resourceTemplates.length, 1);
            assert.equal(c.lists.prompts.length, 1);

            assert.equal(text(await c.callTool('profile', {})), 'Ada likes blue');
            assert.equal(elicitations.length, 2);
            assert.equal((await c.readResource('fixture://items/1')).contents.length, 1);

            await c.callTool('add_tool', { name: 'echo_host' });
            if (expected === 'modern' && !fixture.listen) return; // see the client test above
            await waitFor(() => c.lists.tools.some((t) => t.name === 'echo_host'), 10_000, 'the tree list to refresh');
          } finally {
            await c.stop();
            c.dispose();
          }
        });
      }
    }

    test("a bad protocolEra is a config problem naming the field and the values", async () => {
      const { parseConfigText } = await import('../../src/host/config');
      const parsed = parseConfigText('{"servers": {"x": {"command": "python3", "protocolEra": "2026"}}}', source);
      assert.equal(parsed.servers.length, 0);
      assert.equal(parsed.problems[0].field, 'servers.x.protocolEra');
      assert.match(parsed.problems[0].message, /"auto".*"modern".*"legacy".*not "2026"/);
    });
  });
});
