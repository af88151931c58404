import * as vscode from 'vscode';

/**
 * The questions the extension asks a person. Production uses VS Code's UI; the
 * integration tests install a scripted prompter (through the exported API) so a
 * flow that asks for input runs for real with the test giving the answers.
 */
export interface UserPrompter {
  showInputBox(options: vscode.InputBoxOptions): Thenable<string | undefined>;
  showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions & { canPickMany?: false }): Thenable<T | undefined>;
  showQuickPickMany<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions): Thenable<readonly T[] | undefined>;
  showWarningMessage(message: string, options: vscode.MessageOptions, ...actions: string[]): Thenable<string | undefined>;
}

export const vscodePrompter: UserPrompter = {
  showInputBox: (options) => vscode.window.showInputBox(options),
  showQuickPick: (items, options) => vscode.window.showQuickPick(items, options),
  showQuickPickMany: (items, options) => vscode.window.showQuickPick(items, { ...options, canPickMany: true }),
  showWarningMessage: (message, options, ...actions) => vscode.window.showWarningMessage(message, options, ...actions),
};

/** The prompter in use; replaceable for tests. */
export class PrompterSlot {
  private current: UserPrompter = vscodePrompter;

  get prompter(): UserPrompter {
    return this.current;
  }

  /** Installs a replacement; disposing restores the real UI. */
  replace(prompter: UserPrompter): vscode.Disposable {
    this.current = prompter;
    return new vscode.Disposable(() => {
      if (this.current === prompter) this.current = vscodePrompter;
    });
  }
}

export const prompterSlot = new PrompterSlot();
