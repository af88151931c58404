import type * as vscode from 'vscode';
import type { HostController } from '../hostController';
import type { ServerTreeProvider } from '../serverTree';
import { registerToolFeatures } from './tools';
import { registerResourcesPromptsAndRequests } from './requests';

/**
 * Registers what lets a person USE the servers: running tools, reading resources,
 * getting prompts, and answering the servers' own requests. Called once from activate().
 */
export function registerUsage(context: vscode.ExtensionContext, controller: HostController, tree: ServerTreeProvider): vscode.Disposable[] {
  void context;
  void controller;
  void tree;
  return [
    ...registerToolFeatures(context, controller, tree),
    ...registerResourcesPromptsAndRequests(context, controller),
  ];
}
