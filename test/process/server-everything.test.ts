import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { McpSchemaValidator, schemaAvailable, MCP_SCHEMA_DIR } from '../helpers/mcp-schema';
import { EVERYTHING, isAlive, makeClient, waitFor, type Started } from '../helpers/servers';
import { RequestCancelledError, RemoteError } from '../../src/protocol/errors';
import { REPO_ROOT } from '../helpers/paths';

describe('against @modelcontextprotocol/server-everything', () => {
  let s: Started;
  const samplingRequests: any[] = [];
  const elicitations: any[] = [];

  before(async () => {
    s = makeClient(EVERYTHING, {
      label: 'everything',
      handlers: {
        listRoots: () => [{ uri: pathToFileURL(REPO_ROOT).href, name: 'repo' }],
        createMessage: async (params) => {
          samplingRequests.push(params);
          return { role: 'assistant', content: { type: 'text', text: 'sampled by the test' }, model: 'test-model', stopReason: 'endTurn' };
        },
        elicit: async (params) => {
          elicitations.push(params);
          return { action: 'accept', content: { name: 'Ada', color: 'red', email: 'ada@example.com' } };
        },
      },
    });
    await s.client.connect();
  });

  after(async () => {
    await s?.stop();
  });

  test('handshake negotiates a supported version and reports the server', () => {
    assert.equal(s.client.protocolVersion, '2025-11-25');
    assert.match(s.client.serverInfo!.name, /everything/i);
    assert.ok(s.client.hasCapability('tools'));
    assert.ok(s.client.hasCapability('resources'));
    assert.ok(s.client.hasCapability('prompts'));
    const init = s.trace.find((t) => t.direction === 'send' && t.message.method === 'initialize')!;
    assert.deepEqual(init.message.params.capabilities, { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } });
    const initialized = s.trace.findIndex((t) => t.message.method === 'notifications/initialized');
    const initAnswer = s.trace.findIndex((t) => t.direction === 'receive' && t.message.id === init.message.id);
    assert.ok(initAnswer >= 0 && initialized > initAnswer, 'initialized comes after the answer');
  });

  test('lists everything, all pages', async () => {
    const [tools, resources, templates, prompts] = await Promise.all([
      s.client.listAllTools(),
      s.client.listAllResources(),
      s.client.listAllResourceTemplates(),
      s.client.listAllPrompts(),
    ]);
    const names = tools.map((t) => t.name);
    for (const expected of ['echo', 'get-sum', 'get-tiny-image', 'get-structured-content', 'trigger-long-running-operation', 'trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']) {
      assert.ok(names.includes(expected), `tool ${expected} listed (have ${names.join(', ')})`);
    }
    assert.ok(resources.length > 0);
    assert.ok(templates.some((t) => t.uriTemplate.includes('{resourceId}')));
    assert.ok(prompts.some((p) => p.name === 'args-prompt'));
  });

  test('calls a tool that returns text', async () => {
    const result = await s.client.callTool('echo', { message: 'héllo ✓' });
    assert.equal(result.isError, undefined);
    assert.equal(result.content[0].type, 'text');
    assert.match((result.content[0] as any).text, /héllo ✓/);
  });

  test('calls a tool that returns an image', async () => {
    const result = await s.client.callTool('get-tiny-image');
    const image = result.content.find((c) => c.type === 'image') as any;
    assert.ok(image, 'an image block');
    assert.equal(image.mimeType, 'image/png');
    assert.equal(Buffer.from(image.data, 'base64').subarray(1, 4).toString('latin1'), 'PNG');
  });

  test('calls a tool that returns structuredContent matching its outputSchema', async () => {
    const tools = await s.client.listAllTools();
    const tool = tools.find((t) => t.name === 'get-structured-content')!;
    assert.ok(tool.outputSchema, 'outputSchema declared');
    const result = await s.client.callTool('get-structured-content', { location: 'New York' });
    assert.ok(result.structuredContent && typeof result.structuredContent === 'object');
  });

  test('a tool error comes back as isError, not as a protocol error', async () => {
    const result = await s.client.callTool('get-sum', { a: 'not a number', b: 2 });
    assert.equal(result.isError, true);
  });

  test('an unknown tool is reported', async () => {
    try {
      const result = await s.client.callTool('no-such-tool');
      assert.equal(result.isError, true);
    } catch (err) {
      assert.ok(err instanceof RemoteError);
    }
  });

  test('reads text and blob resources', async () => {
    const text = await s.client.readResource('demo://resource/static/document/features.md');
    const first = text.contents[0] as { text?: unknown };
    assert.ok(typeof first.text === 'string' && first.text.length > 0);
    const blob = await s.client.readResource('demo://resource/dynamic/blob/1');
    assert.ok('blob' in blob.contents[0]);
  });

  test('gets a prompt with arguments and completes an argument', async () => {
    const prompt = await s.client.getPrompt('args-prompt', { city: 'Lisbon' });
    assert.ok(prompt.messages.length > 0);
    assert.match(JSON.stringify(prompt.messages), /Lisbon/);
    const completion = await s.client.complete({ type: 'ref/prompt', name: 'completable-prompt' }, { name: 'department', value: 'E' });
    assert.ok(completion.completion.values.length > 0, 'completion values');
  });

  test('progress notifications reach the caller', async () => {
    const updates: number[] = [];
    const result = await s.client.callTool('trigger-long-running-operation', { duration: 1, steps: 4 }, { onProgress: (u) => updates.push(u.progress) });
    assert.deepEqual(updates, [1, 2, 3, 4]);
    assert.match((result.content[0] as any).text, /completed/);
  });

  test('cancellation sends notifications/cancelled and rejects the call', async () => {
    const controller = new AbortController();
    const call = s.client.callTool('trigger-long-running-operation', { duration: 10, steps: 10 }, { signal: controller.signal, onProgress: () => {} });
    setTimeout(() => controller.abort('test cancels'), 300);
    await assert.rejects(call, RequestCancelledError);
    const cancel = s.trace.find((t) => t.direction === 'send' && t.message.method === 'notifications/cancelled');
    assert.ok(cancel, 'notifications/cancelled was sent');
    assert.equal(cancel!.message.params.reason, 'test cancels');
    // The connection is still usable afterwards.
    await s.client.ping();
  });

  test("answers the server's roots/list request", async () => {
    const result = await s.client.callTool('get-roots-list');
    assert.match(JSON.stringify(result.content), new RegExp(pathToFileURL(REPO_ROOT).href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });

  test("answers the server's sampling request", async () => {
    const result = await s.client.callTool('trigger-sampling-request', { prompt: 'say hi', maxTokens: 5 });
    assert.equal(samplingRequests.length, 1);
    assert.match(JSON.stringify(samplingRequests[0].messages), /say hi/);
    assert.match((result.content[0] as any).text, /sampled by the test/);
  });

  test("answers the server's elicitation request", async () => {
    const result = await s.client.callTool('trigger-elicitation-request');
    assert.equal(elicitations.length, 1);
    assert.ok(elicitations[0].requestedSchema, 'form elicitation with a schema');
    assert.match(JSON.stringify(result.content), /accept/);
  });

  test('logging/setLevel is accepted', async () => {
    await s.client.setLoggingLevel('debug');
  });

  test('every message exchanged validates against the official schema of the negotiated version', async () => {
    const version = s.client.protocolVersion!;
    // The repository carries the schemas it validates against: a missing one is a failure, not a skip.
    assert.ok(schemaAvailable(version), `no official schema for ${version} at ${MCP_SCHEMA_DIR}/${version}/schema.json`);
    const { problems, checked, seenMethods } = new McpSchemaValidator(version).validateTranscript(s.trace);
    assert.deepEqual(problems, []);
    assert.ok(checked >= 30, `checked ${checked} messages`);
    for (const method of ['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'resources/read', 'prompts/get', 'notifications/progress', 'notifications/cancelled', 'roots/list', 'sampling/createMessage', 'elicitation/create']) {
      assert.ok(seenMethods.has(method), `the session exchanged ${method}`);
    }
  });

  test('close ends the server process', async () => {
    const pid = s.transport.pid!;
    await s.stop();
    await waitFor(() => !isAlive(pid), 5000, 'server exit');
  });
});
