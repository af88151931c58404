// Prompts inside a real VS Code, against good-server, server-everything and rich-server: Get Prompt…
// asks for the arguments with completion/complete suggestions (earlier answers as context), and the
// messages open as a readable Markdown document with roles, text, images and embedded resources.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TreeNode } from '../../src/vscode/serverTree';
import { server, waitFor } from './helpers';
import { suggestionsFor, usageSuite } from './usagePrompter';

describe('Prompts: Get Prompt in a real VS Code', function () {
  this.timeout(60_000);
  const suite = usageSuite('prompts');
  const getPrompt = (arg?: unknown) => Promise.resolve(vscode.commands.executeCommand<vscode.Uri | undefined>('mcpHost.getPrompt', arg));

  it('contributes Get Prompt… to the palette and to prompt items', async () => {
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as {
      contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, Array<{ command: string; when: string }>> };
    };
    assert.equal(pkg.contributes.commands.find((c) => c.command === 'mcpHost.getPrompt')?.title, 'Get Prompt…');
    assert.ok(pkg.contributes.menus['view/item/context'].some((m) => m.command === 'mcpHost.getPrompt' && m.when.includes('mcpHost.prompt')));
    const good = server(suite.api, 'good');
    const node: TreeNode = { kind: 'prompt', server: good, prompt: good.lists.prompts.find((p) => p.name === 'greet')! };
    assert.equal(suite.api.tree.getTreeItem(node).command?.command, 'mcpHost.getPrompt', 'a click gets the prompt');
  });

  it('Get Prompt… asks each argument with completion suggestions and shows the messages as Markdown', async () => {
    suite.person.once('prompt.pick', (q) => {
      assert.equal(q.method, 'pick');
      const separators = q.items.filter((i) => i.kind === vscode.QuickPickItemKind.Separator).map((i) => i.label);
      assert.deepEqual(separators, ['everything', 'good', 'rich']);
      return /Greet someone/;
    });
    suite.person.once('prompt.arg:name', async (q) => {
      assert.deepEqual(await suggestionsFor(q, 'Al'), ['Alice', 'Albert', 'Alfred']);
      assert.match(q.method === 'input' ? (q.options.validate?.('') ?? '') : '', /required/, 'a required argument cannot be empty');
      return 'Alice';
    });
    suite.person.once('prompt.arg:style', async (q) => {
      assert.deepEqual(await suggestionsFor(q, 'f'), ['formal']);
      assert.equal(q.method === 'input' ? q.options.validate?.('') : 'x', undefined, 'an optional argument may stay empty');
      return 'formal';
    });
    const uri = (await getPrompt())!;
    assert.equal(uri.scheme, 'mcp-host-prompt');
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === uri.toString() && vscode.window.activeTextEditor, 'the prompt document');
    const text = editor.document.getText();
    assert.equal(editor.document.languageId, 'markdown');
    assert.match(text, /^# Greet someone \(greet\)$/m);
    assert.match(text, /Prompt of the MCP server \*\*good\*\*/);
    assert.match(text, /Arguments: `name` = "Alice", `style` = "formal"/);
    assert.match(text, /^> Greets a person by name\.$/m);
    assert.match(text, /^## 1 · User\n\nPlease greet Alice formally\.$/m);
    assert.equal(path.posix.basename(uri.path), 'greet.md');
  });

  it('completion context carries the earlier answers (server-everything completable-prompt, from the tree)', async () => {
    const everything = server(suite.api, 'everything');
    const prompt = everything.lists.prompts.find((p) => p.name === 'completable-prompt')!;
    const node: TreeNode = { kind: 'prompt', server: everything, prompt };
    const item = suite.api.tree.getTreeItem(node);
    suite.person.once('prompt.arg:department', async (q) => {
      assert.deepEqual(await suggestionsFor(q, 'E'), ['Engineering']);
      return 'Engineering';
    });
    suite.person.once('prompt.arg:name', async (q) => {
      assert.deepEqual(await suggestionsFor(q, ''), ['Alice', 'Bob', 'Charlie'], 'suggestions for the Engineering department');
      return 'Bob';
    });
    const uri = await Promise.resolve(vscode.commands.executeCommand<vscode.Uri>(item.command!.command, ...(item.command!.arguments ?? [])));
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    assert.match(text, /Please promote Bob to the head of the Engineering team\./);
  });

  it('renders every kind of content: roles, text, images, embedded resources, links and audio', async () => {
    const uri = (await getPrompt({ server: 'rich', prompt: 'showcase' }))!;
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    const sections = text.split(/^## /m).slice(1).map((s) => s.split('\n')[0]);
    assert.deepEqual(sections, ['1 · User', '2 · Assistant', '3 · User', '4 · User', '5 · Assistant', '6 · Assistant']);
    assert.match(text, /Look at this picture, and mind the ``` fences\./);
    assert.match(text, /^!\[image 1: image\/png, \d+ bytes\]\[image-1\]$/m);
    assert.match(text, /^\*Embedded resource\* `mem:\/\/rich\/config\.json` \(application\/json\)\n\n```json\n\{"rich": true\}\n```$/m);
    assert.match(text, /^!\[image 2: image\/png\]\[image-2\]$/m, 'an embedded image blob is shown as an image');
    assert.match(text, /^\*Resource link:\* \*\*data\.bin\*\* `mem:\/\/rich\/data\.bin` \(application\/octet-stream\)$/m);
    assert.match(text, /^\*Audio: audio\/wav, 4 bytes/m);
    assert.match(text, /^\[image-1\]: data:image\/png;base64,iVBOR/m, 'image data at the end, out of the way');
    // The source stays readable: no line in the messages carries base64 data.
    const body = text.slice(0, text.indexOf('<!-- images -->'));
    assert.ok(body.split('\n').every((l) => l.length < 200), 'no long lines before the image definitions');
  });

  it('an argument the server rejects is an error naming the server and the prompt', async () => {
    suite.person.always('prompt.error', undefined);
    suite.person.once('prompt.arg:style', '');
    assert.equal(await getPrompt({ server: 'good', prompt: 'greet', arguments: { name: '' } }), undefined);
    const [error] = suite.person.questions('prompt.error');
    assert.ok(error && error.method === 'message');
    assert.equal(error.severity, 'error');
    assert.match(error.text, /"good" could not get the prompt greet: Missing required argument: name/);
  });
});
