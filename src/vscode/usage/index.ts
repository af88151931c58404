import type * as vscode from 'vscode';
import type { HostController } from '../hostController';
import { registerToolFeatures } from './tools';
import type { TaskList } from './tools/taskList';
import { registerResourcesPromptsAndRequests } from './requests';

/**
 * Registers what lets a person USE the servers: running tools, reading resources,
 * getting prompts, and answering the servers' own requests. Called once from activate().
 */
export function registerUsage(context: vscode.ExtensionContext, controller: HostController, tasks: TaskList): vscode.Disposable[] {
  return [
    ...registerToolFeatures(context, controller, tasks),
    ...registerResourcesPromptsAndRequests(context, controller),
  ];
}
