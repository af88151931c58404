import * as vscode from 'vscode';
import { errorMessage } from '../../../util/errorMessage';
import type { HostController } from '../../hostController';
import { registerPrompts } from '../prompts';
import { registerResources } from '../resources';
import { SamplingConsent } from './sampling';
import { usageServices, usageTestHooks } from '../../services';
import { Commands, InternalCommands } from '../../commandIds';

/** The command the integration tests call to reach `UsageTestHooks` (registered in test runs only). */
export const TEST_HOOKS_COMMAND = InternalCommands.usageTestHooks;

/**
 * The editor side of the servers' own requests: roots/list_changed when the workspace folders
 * change, the Reset Sampling Consent command, and (in tests) the hooks that replace the person.
 * The request handlers themselves are installed by serverRequests.ts before servers start.
 */
export function registerServerRequests(context: vscode.ExtensionContext, controller: HostController): vscode.Disposable[] {
  const disposables: vscode.Disposable[] = [
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      for (const server of controller.registry.servers) {
        void server.notifyRootsChanged().catch((err: unknown) => server.logger.warn(`Could not send notifications/roots/list_changed: ${errorMessage(err)}`));
      }
    }),
    vscode.commands.registerCommand(Commands.resetSamplingConsent, async () => {
      const forgotten = await new SamplingConsent(context.globalState).reset();
      const text = forgotten.length
        ? vscode.l10n.t('MCP Host: servers will ask again before sampling (forgot: {0}).', forgotten.join(', '))
        : vscode.l10n.t('MCP Host: no server was allowed to sample without asking.');
      void usageServices.prompter.message('info', text, { key: 'sampling.reset' });
      return forgotten;
    }),
  ];
  if (context.extensionMode === vscode.ExtensionMode.Test) {
    disposables.push(
      vscode.commands.registerCommand(TEST_HOOKS_COMMAND, () => usageTestHooks),
      new vscode.Disposable(() => {
        usageServices.setPrompter(undefined);
        usageServices.setSamplingModel(undefined);
      }),
    );
  }
  return disposables;
}

/**
 * Everything of this part of the usage features: resource documents and templates, prompts,
 * and the servers' own requests. Called once from registerUsage().
 */
export function registerResourcesPromptsAndRequests(context: vscode.ExtensionContext, controller: HostController): vscode.Disposable[] {
  return [
    ...registerResources(controller, { testMode: context.extensionMode === vscode.ExtensionMode.Test }),
    ...registerPrompts(controller),
    ...registerServerRequests(context, controller),
  ];
}
