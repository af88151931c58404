import * as vscode from 'vscode';
import { errorMessage } from '../../../util/errorMessage';
import type { HostController } from '../../hostController';
import { registerPrompts } from '../prompts';
import { registerResources } from '../resources';
import { SamplingConsent } from './sampling';
import { usageServices, usageTestHooks } from '../../services';
import { Commands } from '../../commandIds';

/**
 * The command the integration tests call to reach `UsageTestHooks`, which replace every consent
 * dialog: registered in test runs of a development build only, and absent from a production
 * bundle (esbuild.mjs defines MCP_HOST_TEST_HOOKS false there, so the block below is dropped).
 */
declare const MCP_HOST_TEST_HOOKS: boolean;

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
  if (MCP_HOST_TEST_HOOKS && context.extensionMode === vscode.ExtensionMode.Test) {
    disposables.push(
      vscode.commands.registerCommand('mcpHost.internal.testHooks', () => usageTestHooks),
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
