// Tasks in a real VS Code: Run Tool on server-everything's simulate-research-query (which requires
// task augmentation) follows the task to its result, the tree lists it under the server's Tasks
// node with its status, Cancel on a running row sends tasks/cancel, Show Result reopens a result.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { CallToolResult } from '../../src/protocol/schemas';
import type { TreeNode } from '../../src/vscode/serverTree';
import type { ToolsTestHook } from '../../src/vscode/usage/tools';
import { activateExtension, server, waitFor, waitForState } from './helpers';
import { ScriptedPerson, testHooks } from './usagePrompter';

const TOOL = 'simulate-research-query';
type TaskNode = Extract<TreeNode, { kind: 'task' }>;

describe('Tasks: Run Tool on a task tool, and the Tasks node', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  let hook: ToolsTestHook;

  const run = (topic: string): Promise<CallToolResult | undefined> =>
    Promise.resolve(vscode.commands.executeCommand<CallToolResult | undefined>('mcpHost.runTool', { server: 'everything', tool: TOOL, arguments: { topic } }));

  /** The rows under the everything server's Tasks node, newest first. */
  function taskNodes(): TaskNode[] {
    const serverNode = api.tree.getChildren().find((n) => n.kind === 'server' && n.server.name === 'everything')!;
    const tasksNode = api.tree.getChildren(serverNode).find((n) => n.kind === 'tasks');
    return tasksNode ? (api.tree.getChildren(tasksNode) as TaskNode[]) : [];
  }

  before(async function () {
    this.timeout(90_000);
    api = await activateExtension();
    hook = (await vscode.commands.executeCommand<ToolsTestHook>('mcpHost.tools.testHook'))!;
    const s = server(api, 'everything');
    if (s.state.kind !== 'running') await s.start();
    await waitForState(api, 'everything', 'running', 30_000);
    await waitFor(() => server(api, 'everything').lists.tools.some((t) => t.name === TOOL), 'the task tool listed');
  });

  after(() => {
    for (const view of hook.resultViews()) view.panel.dispose();
  });

  it('runs the tool as a task: the tree shows it working, then completed; the result view shows the report', async () => {
    const pending = run('tide pools');
    const row = await waitFor(() => taskNodes().find((n) => n.task.running && n.task.status === 'working' && n.task.taskId), 'a working task row');
    const item = api.tree.getTreeItem(row);
    assert.equal(item.label, TOOL);
    assert.equal(item.contextValue, 'mcpHost.task.running');
    assert.match(String(item.description), /^working · .+\.\.\. · /, 'status, status message, start time');
    // The run lives on whatever happens to result views meanwhile.
    for (const view of hook.resultViews()) view.panel.dispose();
    const result = await pending;
    assert.match((result?.content[0] as { text: string }).text, /# Research Report: tide pools/);
    const done = taskNodes().find((n) => n.task.key === row.task.key)!;
    assert.equal(done.task.status, 'completed');
    const doneItem = api.tree.getTreeItem(done);
    assert.equal(doneItem.contextValue, 'mcpHost.task.done');
    assert.equal(doneItem.command?.command, 'mcpHost.showTaskResult');
    const view = await waitFor(() => hook.latestResultView(), 'a result view');
    assert.equal(view.model?.status, 'ok');
    assert.equal(view.model?.tool, TOOL);
  });

  it('Show Result on a finished task reopens its result', async () => {
    for (const view of hook.resultViews()) view.panel.dispose();
    await waitFor(() => hook.resultViews().length === 0, 'the result views closed');
    const done = taskNodes().find((n) => n.task.status === 'completed')!;
    await vscode.commands.executeCommand('mcpHost.showTaskResult', done);
    const view = await waitFor(() => hook.latestResultView(), 'the reopened result view');
    assert.equal(view.model?.status, 'ok');
  });

  it('Cancel on a running task sends tasks/cancel; the row and the result say cancelled', async () => {
    const pending = run('to be cancelled');
    const row = await waitFor(() => taskNodes().find((n) => n.task.running && n.task.taskId), 'a running task row');
    assert.equal(hook.runningCalls(), 1);
    await vscode.commands.executeCommand('mcpHost.cancelTask', row);
    const result = await pending;
    assert.equal(result, undefined, 'a cancelled run has no result');
    const after = taskNodes().find((n) => n.task.key === row.task.key)!;
    assert.equal(after.task.status, 'cancelled');
    assert.equal(api.tree.getTreeItem(after).contextValue, 'mcpHost.task.done');
    const view = await waitFor(() => hook.latestResultView(), 'a result view');
    assert.equal(view.model?.status, 'cancelled');
    assert.match(view.model?.errorMessage ?? '', /tasks\/cancel/);
    // The server agrees: the task is cancelled there too.
    const task = await server(api, 'everything').getTask(row.task.taskId!);
    assert.equal(task.status, 'cancelled');
  });

  it('Cancel Task from the palette with two running: the person picks one (through the prompter, as every picker); the other runs on', async () => {
    const first = run('first of two');
    const second = run('second of two');
    const rows = await waitFor(() => {
      const running = taskNodes().filter((n) => n.task.running && n.task.taskId);
      return running.length === 2 ? running : undefined;
    }, 'two running task rows');
    const person = new ScriptedPerson().once('task.cancel', (q) =>
      q.method === 'pick' ? q.items.find((i) => (i as unknown as { run: { key: string } }).run.key === rows[1].task.key) : undefined,
    );
    const hooks = await testHooks();
    hooks.setPrompter(person);
    try {
      await vscode.commands.executeCommand('mcpHost.cancelTask');
    } finally {
      hooks.setPrompter(undefined);
    }
    const asked = person.questions('task.cancel')[0];
    assert.equal(asked?.method === 'pick' ? asked.items.length : 0, 2, 'both running tasks offered');
    const cancelled = rows[1].task.key;
    const [a, b] = await Promise.all([first, second]);
    assert.equal([a, b].filter((r) => r === undefined).length, 1, 'one run was cancelled, the other finished');
    assert.equal(taskNodes().find((n) => n.task.key === cancelled)?.task.status, 'cancelled');
    assert.equal(taskNodes().find((n) => n.task.key === rows[0].task.key)?.task.status, 'completed');
  });
});
