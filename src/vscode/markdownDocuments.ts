import * as vscode from 'vscode';

/**
 * Read-only Markdown documents made from memory under one URI scheme, opened as a Markdown
 * preview: a document per name, whose text a new `show` replaces (an open preview follows).
 */
export class MarkdownDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(readonly scheme: string) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** The URI of a document: its file name is what the preview's tab shows. */
  uriFor(fileName: string): vscode.Uri {
    return vscode.Uri.from({ scheme: this.scheme, path: `/${fileName.replace(/[/\\?#%]/g, '_')}.md` });
  }

  /** Sets the document's text and shows it as a Markdown preview (its source, without the Markdown extension). */
  async show(fileName: string, markdown: string): Promise<vscode.Uri> {
    const uri = this.uriFor(fileName);
    this.texts.set(uri.toString(), markdown);
    this.changed.fire(uri);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      await vscode.window.showTextDocument(uri, { preview: true });
    }
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
