import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient, type ClientRequestHandlers } from '../../src/protocol/client';
import { StdioTransport } from '../../src/transport/stdio';
import type { MessageDirection } from '../../src/protocol/connection';
import { ClosedOnEraProbeError, MissingClientCapabilityError, type ProtocolEraSetting } from '../../src/protocol/era';
import { ConnectionClosedError, McpError, RequestCancelledError } from '../../src/protocol/errors';
import { fixture } from '../helpers/paths';
import { recordingLogger, waitFor } from '../helpers/servers';
import { McpSchemaValidator } from '../helpers/mcp-schema';

interface Session {
  client: McpClient;
  transport: StdioTransport;
  trace: Array<{ direction: MessageDirection; message: any }>;
  stderr: string[];
  logs: string[];
}

function start(
  script: string,
  options: { era?: ProtocolEraSetting; handlers?: ClientRequestHandlers; env?: Record<string, string>; protocolVersion?: string; timeoutMs?: number } = {},
): Session {
  const trace: Session['trace'] = [];
  const stderr: string[] = [];
  const logs: string[] = [];
  const transport = new StdioTransport({
    command: process.execPath,
    args: [fixture(script)],
    env: options.env,
    shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 500 },
  });
  transport.onLog((line) => stderr.push(line));
  const client = new McpClient(
    transport,
    {
      label: `server '${script}'`,
      clientInfo: { name: 'mcp-host-tests', version: '0.0.0' },
      logger: recordingLogger(logs),
      requestTimeoutMs: options.timeoutMs ?? 10_000,
      protocolEra: options.era,
      protocolVersion: options.protocolVersion,
      onTrace: (direction, message) => trace.push({ direction, message: JSON.parse(JSON.stringify(message)) }),
    },
    options.handlers,
  );
  return { client, transport, trace, stderr, logs };
}

const answering: ClientRequestHandlers = {
  elicit: async (params) => ({ action: 'accept', content: { name: String(params.message).includes('style') ? 'formal' : 'Ada' } }),
  createMessage: async () => ({ role: 'assistant', content: { type: 'text', text: 'Hi Ada' }, model: 'test-model', stopReason: 'endTurn' }),
  listRoots: () => [{ uri: 'file:///work', name: 'work' }],
};

const sent = (s: Session, method: string) => s.trace.filter((t) => t.direction === 'send' && t.message.method === method).map((t) => t.message);

describe('protocol eras', () => {
  test('auto: a modern-only server is spoken to in 2026-07-28 (server/discover, _meta on every request)', async () => {
    const s = start('modern-only.mjs', { handlers: answering });
    const result = await s.client.connect();
    assert.equal(s.client.era, 'modern');
    assert.equal(s.client.protocolVersion, '2026-07-28');
    assert.equal(result.serverInfo.name, 'modern-only');
    assert.equal(s.client.instructions, 'A fixture that speaks only the modern era.');
    assert.ok(s.client.hasCapability('tools'));
    assert.deepEqual(sent(s, 'initialize'), []);
    const tools = await s.client.listAllTools();
    assert.ok(tools.some((t) => t.name === 'ask-name'));
    assert.deepEqual(
      { ttlMs: s.client.cacheHints('tools/list')?.ttlMs, cacheScope: s.client.cacheHints('tools/list')?.cacheScope },
      { ttlMs: 30000, cacheScope: 'public' },
    );
    const echo = await s.client.callTool('echo', { text: 'hi' });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'hi' }]);
    for (const m of s.trace.filter((t) => t.direction === 'send' && 'id' in t.message)) {
      const meta = m.message.params._meta;
      assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28', m.message.method);
      assert.ok(meta['io.modelcontextprotocol/clientCapabilities'].elicitation, m.message.method);
      assert.equal(meta['io.modelcontextprotocol/clientInfo'].name, 'mcp-host-tests');
    }
    await s.client.close();
  });

  test('auto: a legacy server that answers the probe with an error gets initialize', async () => {
    const s = start('good-server.mjs');
    await s.client.connect();
    assert.equal(s.client.era, 'legacy');
    assert.equal(s.client.protocolVersion, '2025-11-25');
    assert.equal(sent(s, 'server/discover').length, 1);
    assert.ok((await s.client.listAllTools()).length > 0);
    await s.client.close();
  });

  test('auto: a legacy server that exits on the probe: ClosedOnEraProbeError; started again as legacy it works', async () => {
    const s = start('legacy-closing.mjs');
    await assert.rejects(s.client.connect(), (err: unknown) => {
      assert.ok(err instanceof ClosedOnEraProbeError, String(err));
      assert.ok(err instanceof ConnectionClosedError);
      assert.equal(err.retryEra, 'legacy');
      assert.match(err.message, /protocolEra 'legacy'/);
      return true;
    });
    await s.transport.close();
    // What the host does with it: a new process, the era forced to legacy.
    const again = start('legacy-closing.mjs', { era: 'legacy' });
    await again.client.connect();
    assert.equal(again.client.era, 'legacy');
    assert.deepEqual(sent(again, 'server/discover'), []);
    assert.deepEqual((await again.client.callTool('echo', { text: 'ok' })).content, [{ type: 'text', text: 'ok' }]);
    await again.client.close();
  });

  test('forced legacy against a modern-only server fails with its message; forced modern against a legacy one fails too', async () => {
    const legacy = start('modern-only.mjs', { era: 'legacy' });
    await assert.rejects(legacy.client.connect(), /speaks only MCP 2026-07-28/);
    await legacy.transport.close();
    const modern = start('good-server.mjs', { era: 'modern' });
    await assert.rejects(modern.client.connect(), (err: unknown) => err instanceof McpError && !(err instanceof ClosedOnEraProbeError));
    assert.deepEqual(sent(modern, 'initialize'), []);
    await modern.transport.close();
  });

  test('-32022: the probe is retried with a version both speak', async () => {
    const s = start('modern-only.mjs', { protocolVersion: '2027-01-01' });
    await s.client.connect();
    assert.equal(s.client.era, 'modern');
    assert.equal(s.client.protocolVersion, '2026-07-28');
    const versions = sent(s, 'server/discover').map((m) => m.params._meta['io.modelcontextprotocol/protocolVersion']);
    assert.deepEqual(versions, ['2027-01-01', '2026-07-28']);
    await s.client.callTool('echo', { text: 'x' });
    await s.client.close();
  });

  test('MRTR: three rounds through the handlers, new ids, requestState echoed byte for byte; prompts/get too', async () => {
    const s = start('modern-only.mjs', { handlers: answering });
    await s.client.connect();
    const progress: number[] = [];
    const result = await s.client.callTool('ask-name', {}, { onProgress: (p) => progress.push(p.progress) });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello Ada; roots: 1; model: Hi Ada' }]);
    const calls = sent(s, 'tools/call').filter((m) => m.params.name === 'ask-name');
    assert.equal(calls.length, 3);
    assert.equal(new Set(calls.map((m) => m.id)).size, 3);
    assert.equal(calls[0].params.requestState, undefined);
    assert.equal(calls[0].params.inputResponses, undefined);
    const answers = s.trace.filter((t) => t.direction === 'receive' && t.message.result?.resultType === 'input_required').map((t) => t.message.result);
    assert.equal(calls[1].params.requestState, answers[0].requestState);
    assert.equal(calls[2].params.requestState, answers[1].requestState);
    assert.deepEqual(calls[1].params.inputResponses, { who: { action: 'accept', content: { name: 'Ada' } } });
    assert.deepEqual(calls[2].params.inputResponses.folders, { roots: [{ uri: 'file:///work', name: 'work' }] });
    // Progress tokens are carried on every round.
    assert.ok(calls.every((m) => m.params._meta.progressToken !== undefined));
    const prompt = await s.client.getPrompt('greet');
    assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'Greet in a formal style' });
    await assert.rejects(s.client.callTool('loop'), /asked for more input 16 times/);
    await s.client.close();
  });

  test('MRTR: cancelling while the person answers, and while the retry runs', async () => {
    const controller = new AbortController();
    const s = start('modern-only.mjs', {
      handlers: { ...answering, elicit: () => new Promise(() => controller.abort(new Error('closed the form'))) },
    });
    await s.client.connect();
    await assert.rejects(s.client.callTool('slow-after-input', {}, { signal: controller.signal }), (err: unknown) => err instanceof RequestCancelledError);
    assert.equal(sent(s, 'tools/call').length, 1);

    const late = new AbortController();
    const t = start('modern-only.mjs', { handlers: { ...answering, elicit: async () => ({ action: 'accept', content: { name: 'x' } }) } });
    await t.client.connect();
    const call = t.client.callTool('slow-after-input', {}, { signal: late.signal });
    await waitFor(() => sent(t, 'tools/call').length === 2, 5000, 'the retry was sent');
    late.abort();
    await assert.rejects(call, (err: unknown) => err instanceof RequestCancelledError);
    const retryId = sent(t, 'tools/call')[1].id;
    assert.deepEqual(sent(t, 'notifications/cancelled').map((m) => m.params.requestId), [retryId]);
    await waitFor(() => t.stderr.some((l) => l.includes('slow-after-input cancelled')), 5000, 'the server saw the cancel');
    assert.equal(t.client.connection.pendingCount, 0);
    await s.client.close();
    await t.client.close();
  });

  test('-32021 becomes an error a person understands', async () => {
    const s = start('modern-only.mjs', { handlers: {} });
    await s.client.connect();
    await assert.rejects(s.client.callTool('needs-elicitation'), (err: unknown) => {
      assert.ok(err instanceof MissingClientCapabilityError, String(err));
      assert.match(err.message, /asking you for input \(elicitation\)/);
      return true;
    });
    await s.client.close();
  });

  test('subscriptions/listen: list changes and resource updates arrive as in the legacy era; ended with notifications/cancelled', async () => {
    const s = start('modern-only.mjs', { handlers: answering });
    await s.client.connect();
    let toolsChanged = 0;
    const updated: string[] = [];
    s.client.onToolsListChanged(() => toolsChanged++);
    s.client.onResourceUpdated((uri) => updated.push(uri));
    await s.client.subscribeResource('mem://modern/counter');
    await s.client.callTool('touch', { uri: 'mem://modern/counter' });
    await waitFor(() => updated.length === 1 && toolsChanged >= 1, 5000, 'notifications arrived');
    const listens = sent(s, 'subscriptions/listen');
    assert.ok(listens.length >= 1);
    assert.deepEqual(listens[listens.length - 1].params.notifications.resourceSubscriptions, ['mem://modern/counter']);
    // One stream stays open: the older one was cancelled once the new one was acknowledged.
    const cancelledBefore = sent(s, 'notifications/cancelled').map((m) => m.params.requestId);
    assert.deepEqual(cancelledBefore, listens.slice(0, -1).map((m) => m.id));
    await s.client.unsubscribeResource('mem://modern/counter');
    await s.client.callTool('touch', { uri: 'mem://modern/counter' });
    await waitFor(() => toolsChanged >= 2, 5000, 'tools change after unsubscribe');
    assert.equal(updated.length, 1);
    const last = sent(s, 'subscriptions/listen').at(-1)!;
    await s.client.close();
    assert.ok(sent(s, 'notifications/cancelled').some((m) => m.params.requestId === last.id));
  });

  test('every message of a modern session validates against the 2026-07-28 schema', async () => {
    const s = start('modern-only.mjs', { handlers: answering });
    await s.client.connect();
    s.client.onToolsListChanged(() => undefined);
    await s.client.listAllTools();
    await s.client.listAllResources();
    await s.client.listAllResourceTemplates();
    await s.client.listAllPrompts();
    await s.client.readResource('mem://modern/counter');
    await s.client.callTool('ask-name');
    await s.client.getPrompt('greet');
    await s.client.subscribeResource('mem://modern/counter');
    await s.client.callTool('touch', { uri: 'mem://modern/counter' });
    await s.client.ping();
    await assert.rejects(s.client.callTool('nope'));
    await s.client.close();
    const validator = new McpSchemaValidator('2026-07-28');
    const { problems, checked, seenMethods } = validator.validateTranscript(s.trace);
    assert.deepEqual(problems, []);
    assert.ok(checked > 20, `checked ${checked}`);
    for (const m of ['server/discover', 'subscriptions/listen', 'notifications/subscriptions/acknowledged', 'notifications/resources/updated', 'notifications/cancelled']) {
      assert.ok(seenMethods.has(m), m);
    }
  });
});
