import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Tool } from '../../../protocol/schemas';
import { runQuickInput } from '../../quickInput';
import { isDestructive, isTrusted, trust } from './settings';

type Answer = 'run' | 'tool' | 'server' | 'cancel';
type Choice = vscode.QuickPickItem & { answer: Answer };

/**
 * Asks before a destructive tool runs, unless the tool or its server is trusted. A quick pick
 * rather than a modal dialog: keyboard-first, shows the arguments, and offers to trust the tool
 * or the server (the setting mcpHost.tools.trusted) in the same place. False = cancelled.
 */
export async function confirmDestructive(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<boolean> {
  if (!isDestructive(tool) || isTrusted(server.name, tool.name)) return true;
  const answer = await askConfirmation(server, tool, args);
  if (answer === 'tool') await trust(`${server.name}/${tool.name}`);
  if (answer === 'server') await trust(server.name);
  return answer !== 'cancel';
}

function confirmationChoices(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Choice[] {
  let argsText = JSON.stringify(args);
  if (argsText.length > 300) argsText = `${argsText.slice(0, 300)}…`;
  return [
    { label: vscode.l10n.t('$(play) Run'), description: vscode.l10n.t('once'), detail: vscode.l10n.t('Arguments: {0}', argsText), answer: 'run' },
    { label: vscode.l10n.t('$(pass) Always Run "{0}"', tool.name), description: vscode.l10n.t('adds it to mcpHost.tools.trusted'), answer: 'tool' },
    {
      label: vscode.l10n.t('$(workspace-trusted) Trust All Tools of "{0}"', server.name),
      description: vscode.l10n.t('adds the server to mcpHost.tools.trusted'),
      answer: 'server',
    },
    { label: vscode.l10n.t('$(close) Cancel'), answer: 'cancel' },
  ];
}

function askConfirmation(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<Answer> {
  const pick = vscode.window.createQuickPick<Choice>();
  pick.title = vscode.l10n.t(
    'Run "{0}" on "{1}"? The server marks this tool as destructive: it may change or delete data.',
    tool.title ?? tool.annotations?.title ?? tool.name,
    server.name,
  );
  pick.placeholder = vscode.l10n.t('Confirm to run the tool (Escape cancels)');
  pick.items = confirmationChoices(server, tool, args);
  pick.ignoreFocusOut = true;
  return runQuickInput<Answer>(pick, 'cancel', ({ finish }) => [pick.onDidAccept(() => finish((pick.selectedItems[0] ?? pick.activeItems[0])?.answer ?? 'cancel'))]);
}
