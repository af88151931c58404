import { McpSchemaValidator, schemaAvailable } from '../helpers/mcp-schema';
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RequestCancelledError } from '../../src/protocol/errors';
import { makeHttpClient, startEverythingHttp, type HttpServerProcess, type HttpStarted } from '../helpers/http';
import { waitFor } from '../helpers/servers';


function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

interface Recorded {
  sampling: any[];
  elicitations: any[];
  roots: number;
}

function handlers(into: Recorded) {
  return {
    listRoots: () => {
      into.roots++;
      return [{ uri: 'file:///tmp/http-test-root', name: 'root' }];
    },
    createMessage: async (params: Record<string, unknown>) => {
      into.sampling.push(params);
      return { role: 'assistant', content: { type: 'text', text: 'sampled over http' }, model: 'test-model', stopReason: 'endTurn' };
    },
    elicit: async (params: Record<string, unknown>) => {
      into.elicitations.push(params);
      return { action: 'accept', content: { name: 'Ada', color: 'red', email: 'ada@example.com' } };
    },
  };
}

describe('server-everything over Streamable HTTP', () => {
  let server: HttpServerProcess;
  let s: HttpStarted;
  const recorded: Recorded = { sampling: [], elicitations: [], roots: 0 };

  before(async () => {
    server = await startEverythingHttp('streamableHttp');
    s = makeHttpClient('http', `${server.base}/mcp`, { label: 'everything-http', handlers: handlers(recorded) });
    await s.client.connect();
  });

  after(async () => {
    await s?.stop();
    await server?.stop();
  });

  test('handshake over Streamable HTTP', () => {
    assert.equal(s.client.protocolVersion, '2025-11-25');
    assert.match(s.client.serverInfo!.name, /everything/i);
    assert.ok(s.transportLogs.some((l) => /using the Streamable HTTP transport/.test(l)), s.transportLogs.join('\n'));
  });

  test('the server asks for roots on its own, over the GET stream, and the handler answers', async () => {
    const logged: string[] = [];
    s.client.onLogMessage((m) => logged.push(String(m.data)));
    // server-everything sends roots/list 350 ms after notifications/initialized, tied to no request.
    await waitFor(() => recorded.roots >= 1, 5000, 'roots/list from the server');
    const request = s.trace.find((t) => t.direction === 'receive' && t.message.method === 'roots/list');
    assert.ok(request, 'roots/list arrived');
    await waitFor(() => logged.some((l) => /Roots updated: 1 root/.test(l)), 5000, 'the server confirms the roots');
    const result = await s.client.callTool('get-roots-list');
    assert.match(JSON.stringify(result.content), /http-test-root/);
  });

  test('lists tools, resources, templates and prompts', async () => {
    const [tools, resources, templates, prompts] = await Promise.all([
      s.client.listAllTools(),
      s.client.listAllResources(),
      s.client.listAllResourceTemplates(),
      s.client.listAllPrompts(),
    ]);
    const names = tools.map((t) => t.name);
    for (const expected of ['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-sampling-request', 'trigger-elicitation-request']) {
      assert.ok(names.includes(expected), `tool ${expected} listed`);
    }
    assert.ok(resources.length > 0);
    assert.ok(templates.length > 0);
    assert.ok(prompts.some((p) => p.name === 'args-prompt'));
  });

  test('calls a tool and reads a resource', async () => {
    assert.match(text(await s.client.callTool('echo', { message: 'héllo over http ✓' })), /héllo over http ✓/);
    const read = await s.client.readResource('demo://resource/static/document/features.md');
    assert.ok(typeof (read.contents[0] as { text?: unknown }).text === 'string');
  });

  test('progress notifications arrive on the POST stream', async () => {
    const updates: number[] = [];
    const result = await s.client.callTool('trigger-long-running-operation', { duration: 1, steps: 4 }, { onProgress: (u) => updates.push(u.progress) });
    assert.deepEqual(updates, [1, 2, 3, 4]);
    assert.match(text(result), /completed/);
  });

  test('cancellation rejects the call and the connection goes on', async () => {
    const controller = new AbortController();
    const call = s.client.callTool('trigger-long-running-operation', { duration: 10, steps: 10 }, { signal: controller.signal, onProgress: () => {} });
    setTimeout(() => controller.abort('test cancels'), 300);
    await assert.rejects(call, RequestCancelledError);
    assert.ok(s.trace.some((t) => t.direction === 'send' && t.message.method === 'notifications/cancelled'));
    await s.client.ping();
  });

  test('a sampling request over the POST stream is answered by the handler', async () => {
    const result = await s.client.callTool('trigger-sampling-request', { prompt: 'say hi', maxTokens: 5 });
    assert.equal(recorded.sampling.length, 1);
    assert.match(JSON.stringify(result.content), /sampled over http/);
  });

  test('an elicitation request is answered by the handler', async () => {
    const result = await s.client.callTool('trigger-elicitation-request');
    assert.equal(recorded.elicitations.length, 1);
    assert.match(JSON.stringify(result.content), /accept/);
  });

  test('many calls in flight', async () => {
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => s.client.callTool('get-sum', { a: i, b: 1 })));
    results.forEach((r, i) => assert.match(text(r), new RegExp(`\\b${i + 1}\\b`)));
  });

  test('every message of the HTTP session validates against the official schema of the negotiated version', () => {
    const version = s.client.protocolVersion!;
    assert.ok(schemaAvailable(version), `no official schema for ${version}`);
    const { problems, checked, seenMethods } = new McpSchemaValidator(version).validateTranscript(s.trace);
    assert.deepEqual(problems, []);
    assert.ok(checked >= 30, `checked ${checked} messages`);
    for (const method of ['initialize', 'tools/call', 'resources/read', 'notifications/progress', 'roots/list', 'sampling/createMessage', 'elicitation/create']) {
      assert.ok(seenMethods.has(method), `the session exchanged ${method}`);
    }
  });

  test('close ends the session (DELETE) and reports an expected close', async () => {
    await s.stop();
    assert.deepEqual(
      s.closes.map((c) => c.expected),
      [true],
    );
    await waitFor(() => server.output.some((l) => /session termination/i.test(l)), 3000, 'the server saw the DELETE');
  });
});

describe('server-everything over legacy HTTP+SSE', () => {
  let server: HttpServerProcess;

  before(async () => {
    server = await startEverythingHttp('sse');
  });

  after(async () => {
    await server?.stop();
  });

  for (const kind of ['sse', 'http'] as const) {
    test(`type '${kind}'${kind === 'http' ? ' falls back to legacy and' : ''} lists, calls, reads, progresses and answers sampling`, async () => {
      const recorded: Recorded = { sampling: [], elicitations: [], roots: 0 };
      const s = makeHttpClient(kind, `${server.base}/sse`, { label: `everything-${kind}`, handlers: handlers(recorded) });
      try {
        await s.client.connect();
        if (kind === 'http') {
          assert.ok(s.transportLogs.some((l) => /POST initialize answered HTTP 404/.test(l)), s.transportLogs.join('\n'));
        }
        assert.ok(s.transportLogs.some((l) => /legacy HTTP\+SSE/.test(l)), s.transportLogs.join('\n'));
        const tools = await s.client.listAllTools();
        assert.ok(tools.some((t) => t.name === 'echo'));
        assert.match(text(await s.client.callTool('echo', { message: `via ${kind}` })), new RegExp(`via ${kind}`));
        const read = await s.client.readResource('demo://resource/static/document/features.md');
        assert.ok(read.contents.length > 0);
        const updates: number[] = [];
        await s.client.callTool('trigger-long-running-operation', { duration: 0.4, steps: 2 }, { onProgress: (u) => updates.push(u.progress) });
        assert.deepEqual(updates, [1, 2]);
        const sampled = await s.client.callTool('trigger-sampling-request', { prompt: 'hi', maxTokens: 5 });
        assert.match(JSON.stringify(sampled.content), /sampled over http/);
        await waitFor(() => recorded.roots >= 1, 5000, 'roots/list from the server');
      } finally {
        await s.stop();
      }
      assert.deepEqual(
        s.closes.map((c) => c.expected),
        [true],
      );
    });
  }
});
