// Tasks (2025-11-25) against the real server-everything: its simulate-research-query tool requires
// task augmentation, answers with a task, reports its stages as status messages and ends in ~4 s.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { McpSchemaValidator, schemaAvailable } from '../helpers/mcp-schema';
import { EVERYTHING, makeClient, type Started } from '../helpers/servers';
import { RemoteError, RequestCancelledError } from '../../src/protocol/errors';
import { TaskCancelledError, isTerminalStatus, runsAsTask, taskFlavour, toolTaskSupport, type TaskInfo } from '../../src/protocol/tasks';

const TOOL = 'simulate-research-query';

describe('tasks against @modelcontextprotocol/server-everything', () => {
  let s: Started;

  before(async () => {
    s = makeClient(EVERYTHING, { label: 'everything' });
    await s.client.connect();
  });

  after(async () => {
    await s?.stop();
  });

  test('the server offers tool tasks and the research tool requires them; echo does not run as a task', async () => {
    const caps = s.client.serverCapabilities;
    assert.equal(taskFlavour(caps), 'legacy');
    assert.ok(s.client.tasks.canList && s.client.tasks.canCancel);
    const tools = await s.client.listAllTools();
    const research = tools.find((t) => t.name === TOOL)!;
    assert.equal(toolTaskSupport(research), 'required');
    assert.equal(runsAsTask(caps, research), true);
    assert.equal(runsAsTask(caps, tools.find((t) => t.name === 'echo')!), false);
  });

  test('without the task augmentation the server refuses the call (what used to happen)', async () => {
    const result = await s.client.callTool(TOOL, { topic: 'x' });
    assert.equal(result.isError, true);
    assert.match((result.content[0] as { text: string }).text, /-32601.*requires task augmentation/);
  });

  test('callToolAsTask follows the task through its stages to the result', async () => {
    const statuses: TaskInfo[] = [];
    const started = Date.now();
    const result = await s.client.callToolAsTask(TOOL, { topic: 'tide pools' }, { onStatus: (t) => statuses.push(t), ttlMs: 120_000 });
    assert.equal(result.isError, undefined);
    assert.match((result.content[0] as { text: string }).text, /# Research Report: tide pools/);
    // Created working, then each stage's message, ending completed.
    assert.equal(statuses[0].status, 'working');
    assert.ok(statuses[0].taskId.length > 0);
    assert.equal(statuses.at(-1)!.status, 'completed');
    const messages = statuses.map((t) => t.statusMessage);
    for (const stage of ['Gathering sources...', 'Analyzing content...', 'Synthesizing findings...', 'Generating report...']) {
      assert.ok(messages.includes(stage), `status ${stage} seen (have ${messages.join(' | ')})`);
    }
    assert.ok(statuses.every((t) => t.taskId === statuses[0].taskId));
    assert.equal(statuses[0].pollIntervalMs, 1000, 'the server suggests 1 s');
    // The wire: a task member on tools/call, polls no faster than the server suggested, one tasks/result.
    const call = s.trace.find((t) => t.direction === 'send' && t.message.method === 'tools/call' && t.message.params.name === TOOL && t.message.params.task)!;
    assert.deepEqual(call.message.params.task, { ttl: 120_000 });
    const mine = (method: string) => s.trace.filter((t) => t.direction === 'send' && t.message.method === method && t.message.params?.taskId === statuses[0].taskId);
    assert.equal(mine('tasks/result').length, 1);
    const polls = mine('tasks/get').length;
    const seconds = (Date.now() - started) / 1000;
    assert.ok(polls <= Math.ceil(seconds) + 1, `${polls} polls in ${seconds} s`);
  });

  test('getTask and listTasks show the finished task', async () => {
    const ids: string[] = [];
    await s.client.callToolAsTask(TOOL, { topic: 'listing' }, { onStatus: (t) => ids.push(t.taskId) });
    const task = await s.client.tasks.getTask(ids[0]);
    assert.equal(task.status, 'completed');
    assert.equal(task.ttlMs, 300_000);
    const { tasks } = await s.client.tasks.listTasks();
    assert.ok(tasks.some((t) => t.taskId === ids[0] && isTerminalStatus(t.status)));
  });

  test('aborting the signal cancels the task with tasks/cancel; the server keeps it cancelled', async () => {
    const controller = new AbortController();
    const statuses: TaskInfo[] = [];
    const run = s.client.callToolAsTask(TOOL, { topic: 'to cancel' }, {
      signal: controller.signal,
      onStatus: (t) => {
        statuses.push(t);
        if (t.statusMessage === 'Analyzing content...') controller.abort('the test cancels');
      },
    });
    await assert.rejects(run, (err: unknown) => err instanceof TaskCancelledError && err instanceof RequestCancelledError && /tasks\/cancel/.test(err.message));
    const taskId = statuses[0].taskId;
    const cancel = s.trace.find((t) => t.direction === 'send' && t.message.method === 'tasks/cancel' && t.message.params.taskId === taskId);
    assert.ok(cancel, 'tasks/cancel was sent');
    assert.equal(statuses.at(-1)!.status, 'cancelled');
    assert.equal((await s.client.tasks.getTask(taskId)).status, 'cancelled');
    // Cancelling a task that has ended is refused by the server (-32602), as the spec says.
    await assert.rejects(s.client.tasks.cancelTask(taskId), (err: unknown) => err instanceof RemoteError && err.code === -32602);
  });

  test('a signal aborted before the call sends nothing', async () => {
    const before = s.trace.length;
    await assert.rejects(s.client.callToolAsTask(TOOL, { topic: 'never' }, { signal: AbortSignal.abort() }), TaskCancelledError);
    assert.equal(s.trace.length, before);
  });

  test('every message of the task session validates against the 2025-11-25 schema', () => {
    const version = s.client.protocolVersion!;
    assert.ok(schemaAvailable(version));
    const { problems, seenMethods } = new McpSchemaValidator(version).validateTranscript(s.trace);
    assert.deepEqual(problems, []);
    for (const method of ['tools/call', 'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'notifications/tasks/status']) {
      assert.ok(seenMethods.has(method), `the session exchanged ${method}`);
    }
  });
});
