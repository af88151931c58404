// The 2026-07-28 tasks extension's client loop (protocol/tasks.ts), over a scripted server:
// the extension declared per request, a task handle followed by tasks/get with requestState
// echoed, input requests answered once through tasks/update, result, failure and cancel.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientRequestHandlers } from '../../src/protocol/client';
import { RemoteError } from '../../src/protocol/errors';
import { TASKS_EXTENSION, TaskClient, TaskCancelledError, runsAsTask, type TaskInfo, type TaskPort } from '../../src/protocol/tasks';

const CAPS = { tools: {}, extensions: { [TASKS_EXTENSION]: {} } };
const BASE = { createdAt: '2026-07-28T10:00:00Z', lastUpdatedAt: '2026-07-28T10:00:00Z', ttlSeconds: 60, pollIntervalMilliseconds: 5 };

/** A server answering from a script: tools/call gives the seed, each tasks/get the next state. */
function scripted(states: Array<Record<string, unknown>>, handlers: ClientRequestHandlers = {}) {
  const sent: Array<{ method: string; params: any; meta?: any }> = [];
  let polls = 0;
  const port: TaskPort = {
    label: "server 'modern'",
    request: async (method, params, schema, options) => {
      sent.push({ method, params, meta: options?.meta });
      let answer: unknown = {};
      if (method === 'tools/call') answer = { resultType: 'task', taskId: 't1', status: 'working', ...BASE, requestState: 'rs-0' };
      if (method === 'tasks/get') answer = { resultType: 'complete', taskId: 't1', ...BASE, ...states[Math.min(polls++, states.length - 1)] };
      const parsed = schema.safeParse(answer);
      if (!parsed.success) throw new Error(`bad scripted answer for ${method}`);
      return parsed.data;
    },
    onNotification: () => ({ dispose() {} }),
    capabilities: () => CAPS,
    clientCapabilities: () => ({ elicitation: { form: {} } }),
    handlers,
  };
  return { client: new TaskClient(port), sent };
}

describe('tasks extension (2026-07-28) client loop', () => {
  test('a server offering the extension runs every tool call through the task path', () => {
    assert.equal(runsAsTask(CAPS, { name: 'x' }), true);
  });

  test('follows the task: requestState echoed, an input request answered once, the result returned', async () => {
    const elicited: unknown[] = [];
    const { client, sent } = scripted(
      [
        { status: 'working', requestState: 'rs-1' },
        { status: 'input_required', requestState: 'rs-2', inputRequests: { name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object' } } } } },
        { status: 'input_required', requestState: 'rs-3', inputRequests: { name: { method: 'elicitation/create', params: { message: 'Name?' } } } },
        { status: 'completed', result: { content: [{ type: 'text', text: 'hello Ada' }] } },
      ],
      { elicit: async (params) => (elicited.push(params), { action: 'accept', content: { name: 'Ada' } }) },
    );
    const statuses: TaskInfo[] = [];
    const result = await client.callTool('hello', {}, { onStatus: (t) => statuses.push(t) });
    assert.equal((result.content[0] as { text: string }).text, 'hello Ada');
    assert.deepEqual(sent[0].meta['io.modelcontextprotocol/clientCapabilities'], { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } });
    assert.equal(elicited.length, 1, 'a key is answered once');
    const update = sent.find((m) => m.method === 'tasks/update')!;
    assert.deepEqual(update.params, { taskId: 't1', inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } }, requestState: 'rs-2' });
    const gets = sent.filter((m) => m.method === 'tasks/get').map((m) => m.params.requestState);
    assert.deepEqual(gets.slice(0, 3), ['rs-0', 'rs-1', 'rs-2']);
    assert.deepEqual(statuses.map((s) => s.status), ['working', 'input_required', 'completed']);
    assert.equal(statuses[0].ttlMs, 60_000);
    assert.equal(statuses[0].pollIntervalMs, 5);
  });

  test('a failed task rejects with its JSON-RPC error', async () => {
    const { client } = scripted([{ status: 'failed', error: { code: -32603, message: 'backend down' } }]);
    await assert.rejects(client.callTool('x', {}), (err: unknown) => err instanceof RemoteError && err.code === -32603 && err.message === 'backend down');
  });

  test('aborting sends tasks/cancel with the latest requestState', async () => {
    const { client, sent } = scripted([{ status: 'working', requestState: 'rs-9' }]);
    const controller = new AbortController();
    const run = client.callTool('x', {}, { signal: controller.signal });
    // Polls come no faster than every 50 ms: by 200 ms a poll has brought rs-9.
    setTimeout(() => controller.abort('stop'), 200);
    await assert.rejects(run, TaskCancelledError);
    assert.deepEqual(sent.find((m) => m.method === 'tasks/cancel')!.params, { taskId: 't1', requestState: 'rs-9' });
  });
});
