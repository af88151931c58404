// Resources inside a real VS Code, against real servers (good-server, rich-server, server-everything):
// documents under the mcp-host-resource scheme (text with the language of its MIME type, blobs as binary
// in the image preview), templates filled with completion/complete suggestions, subscriptions that
// follow the open tabs and update the document, Copy URI, and errors that name the server.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TreeNode } from '../../src/vscode/serverTree';
import { parseResourceDocumentUri, resourceDocumentUri } from '../../src/vscode/usage/resources/resourceUri';
import { server, waitFor, waitForState } from './helpers';
import { suggestionsFor, usageSuite } from './usagePrompter';

const PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WEIRD = 'mem://rich/dir%20x/a b?q=1&r=/x#frag';

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

function tabFor(uri: vscode.Uri): vscode.Tab | undefined {
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input as { uri?: vscode.Uri } | undefined;
      if (input?.uri?.toString() === uri.toString()) return tab;
    }
  }
  return undefined;
}

function textOf(result: { content: Array<{ type: string }> }): string {
  return result.content.map((b) => (b.type === 'text' ? (b as unknown as { text: string }).text : '')).join('');
}

async function subscriptions(name: string): Promise<string[]> {
  return (await vscode.commands.executeCommand<string[]>('mcpHost.internal.resourceSubscriptions', name)) ?? [];
}

async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Resources: documents, templates and subscriptions in a real VS Code', function () {
  this.timeout(60_000);
  const suite = usageSuite('resources');
  const read = (arg?: unknown) => Promise.resolve(vscode.commands.executeCommand<vscode.Uri | undefined>('mcpHost.readResource', arg));

  it('contributes Read Resource…, Copy URI and the tree menus', async () => {
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as {
      contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, Array<{ command: string; when: string }>> };
    };
    assert.equal(pkg.contributes.commands.find((c) => c.command === 'mcpHost.readResource')?.title, 'Read Resource…');
    assert.equal(pkg.contributes.commands.find((c) => c.command === 'mcpHost.copyResourceUri')?.title, 'Copy URI');
    const menu = pkg.contributes.menus['view/item/context'];
    assert.ok(menu.some((m) => m.command === 'mcpHost.readResource' && m.when.includes('resourceTemplate')));
    assert.ok(menu.some((m) => m.command === 'mcpHost.copyResourceUri' && m.when.includes('resource')));
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['mcpHost.readResource', 'mcpHost.copyResourceUri']) assert.ok(commands.includes(id), id);
  });

  it('document URIs round-trip any resource URI and server name, with a readable file name', () => {
    const uris = [
      'mem://good/hello.txt',
      WEIRD,
      'file:///C:/Users/Zoë/a%2Fb.txt',
      'urn:isbn:0451450523',
      'https://example.com/a/b/?x=%41&y=ü#top',
      'demo://resource/dynamic/text/1',
      'x:',
      'weird://host/100%/%%/?#',
    ];
    for (const name of ['good', 'My Server', 'a@b:c', 'Ünïcödé', 'UPPER']) {
      for (const uri of uris) {
        const doc = resourceDocumentUri(name, uri, { name: 'nested/name/report.csv', mimeType: 'text/csv' });
        assert.equal(path.posix.basename(doc.path), 'report.csv');
        for (const again of [doc, vscode.Uri.parse(doc.toString()), vscode.Uri.parse(doc.toString(true))]) {
          assert.deepEqual(parseResourceDocumentUri(again), { serverName: name, resourceUri: uri }, `${name} ${uri} via ${again.toString()}`);
        }
      }
    }
    assert.equal(path.posix.basename(resourceDocumentUri('s', 'mem://x/pixel', { mimeType: 'image/png' }).path), 'pixel.png');
    assert.equal(path.posix.basename(resourceDocumentUri('s', 'demo://resource/static/document/architecture.md').path), 'architecture.md');
    assert.equal(path.posix.basename(resourceDocumentUri('s', 'urn:x', { name: 'Resource 1', mimeType: 'text/plain' }).path), 'Resource 1.txt');
    // Readable: breadcrumbs and tab descriptions show the path, which reads like the resource URI;
    // the query holds the exact URI.
    const readable = resourceDocumentUri('good', 'mem://good/docs/hello.txt');
    assert.equal(readable.path, '/mem:/good/docs/hello.txt');
    assert.doesNotMatch(readable.path, /~2F/);
    assert.equal(resourceDocumentUri('s', 'urn:x', { name: 'Resource 1' }).path, '/urn:/Resource 1');
    // A document restored from the earlier form (the escaped URI as the first path segment) still opens.
    assert.deepEqual(parseResourceDocumentUri(vscode.Uri.parse('mcp-host-resource://good/mem:~2F~2Fgood~2Fhello.txt/hello.txt')), { serverName: 'good', resourceUri: 'mem://good/hello.txt' });
  });

  it('clicking a text resource in the tree opens it read-only, with the language of its MIME type', async () => {
    const goodNode = suite.api.tree.getChildren().find((n) => n.kind === 'server' && n.server.name === 'good')!;
    const category = suite.api.tree.getChildren(goodNode).find((c) => labelOf(suite.api.tree.getTreeItem(c)) === 'Resources')!;
    const node = suite.api.tree.getChildren(category).find((n): n is Extract<TreeNode, { kind: 'resource' }> => n.kind === 'resource' && n.resource.uri === 'mem://good/hello.txt')!;
    const item = suite.api.tree.getTreeItem(node);
    assert.equal(item.command?.command, 'mcpHost.readResource', 'a click reads the resource');
    const uri = await Promise.resolve(vscode.commands.executeCommand<vscode.Uri>(item.command!.command, ...(item.command!.arguments ?? [])));
    assert.equal(uri.scheme, 'mcp-host-resource');
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === uri.toString() && vscode.window.activeTextEditor, 'the editor');
    assert.match(editor.document.getText(), /^Hello, world!/);
    assert.equal(editor.document.languageId, 'plaintext');
    assert.equal(tabFor(uri)?.label, 'hello.txt');
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('no'))), /read-only|NoPermissions/i);
    const stat = await vscode.workspace.fs.stat(uri);
    assert.equal((stat.permissions ?? 0) & vscode.FilePermission.Readonly, vscode.FilePermission.Readonly);

    const md = server(suite.api, 'everything').lists.resources.find((r) => r.mimeType === 'text/markdown')!;
    const mdUri = (await read({ server: 'everything', uri: md.uri }))!;
    const mdDoc = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.toString() === mdUri.toString()), 'the markdown document');
    assert.equal(mdDoc.languageId, 'markdown');
    const served = await server(suite.api, 'everything').client!.readResource(md.uri);
    assert.equal(mdDoc.getText(), (served.contents[0] as { text: string }).text);

    const jsonUri = (await read({ server: 'rich', uri: 'mem://rich/config.json' }))!;
    const jsonDoc = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.toString() === jsonUri.toString()), 'the json document');
    assert.equal(jsonDoc.languageId, 'json');
    assert.equal(tabFor(jsonUri)?.label, 'config.json');

    const weirdUri = (await read({ server: 'rich', uri: WEIRD }))!;
    assert.equal(tabFor(weirdUri)?.label, 'report.csv');
    assert.equal((await vscode.workspace.openTextDocument(weirdUri)).getText(), 'a,b\n1,2\n');

    const multi = (await read({ server: 'rich', uri: 'mem://rich/multi' }))!;
    const multiText = (await vscode.workspace.openTextDocument(multi)).getText();
    assert.match(multiText, /mem:\/\/rich\/multi\/1[\s\S]*first part[\s\S]*mem:\/\/rich\/multi\/2[\s\S]*second part/);
  });

  it('a binary resource opens as binary: an image in the image preview, other bytes untouched', async () => {
    const uri = (await read({ server: 'good', uri: 'mem://good/pixel.png' }))!;
    assert.equal(path.posix.basename(uri.path), 'pixel.png');
    const tab = await waitFor(() => tabFor(uri), 'the image tab');
    assert.ok(tab.input instanceof vscode.TabInputCustom, `a custom editor, got ${tab.input?.constructor.name}`);
    assert.equal((tab.input as vscode.TabInputCustom).viewType, 'imagePreview.previewEditor');
    assert.deepEqual(Buffer.from(await vscode.workspace.fs.readFile(uri)), Buffer.from(PIXEL_PNG_BASE64, 'base64'));

    const bin = (await read({ server: 'rich', uri: 'mem://rich/data.bin' }))!;
    assert.equal(path.posix.basename(bin.path), 'data.bin');
    await waitFor(() => tabFor(bin), 'the binary tab');
    const bytes = await vscode.workspace.fs.readFile(bin);
    assert.equal(bytes.byteLength, 512);
    assert.deepEqual([...bytes.slice(0, 4)], [0, 1, 2, 3]);
    assert.equal(bytes[255], 255);
    await assert.rejects(Promise.resolve(vscode.workspace.openTextDocument(bin)), /binary/i, 'VS Code treats it as binary, not text');
  });

  it('Read Resource… offers every server’s resources and templates; a template is filled with completion', async () => {
    suite.person.once('resource.pick', (q) => {
      assert.equal(q.method, 'pick');
      const separators = q.items.filter((i) => i.kind === vscode.QuickPickItemKind.Separator).map((i) => i.label);
      assert.deepEqual(separators, ['everything', 'good', 'rich']);
      assert.ok(q.items.some((i) => i.description === 'mem://good/hello.txt'), 'resources listed');
      assert.ok(q.items.some((i) => i.description === 'demo://resource/dynamic/text/{resourceId}'), 'templates listed');
      return /^mem:\/\/good\/greeting\/\{name\}$/;
    });
    suite.person.once('template.var:name', async (q) => {
      assert.deepEqual(await suggestionsFor(q, 'Al'), ['Alice', 'Albert', 'Alfred']);
      assert.deepEqual(await suggestionsFor(q, 'Z'), ['Zoë']);
      return 'Alfred';
    });
    const uri = (await read())!;
    assert.deepEqual(parseResourceDocumentUri(uri), { serverName: 'good', resourceUri: 'mem://good/greeting/Alfred' });
    const doc = await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === uri.toString() && vscode.window.activeTextEditor!.document, 'the greeting');
    assert.equal(doc.getText(), 'Hello, Alfred!');
    assert.equal(tabFor(uri)?.label, 'Alfred.txt');

    // server-everything's template, from its tree item: its completion echoes a valid id.
    const everything = server(suite.api, 'everything');
    const template = everything.lists.resourceTemplates.find((t) => t.uriTemplate === 'demo://resource/dynamic/text/{resourceId}')!;
    const node: TreeNode = { kind: 'resourceTemplate', server: everything, template };
    assert.equal(suite.api.tree.getTreeItem(node).command?.command, 'mcpHost.readResource');
    suite.person.once('template.var:resourceId', async (q) => {
      assert.deepEqual(await suggestionsFor(q, '3'), ['3']);
      assert.deepEqual(await suggestionsFor(q, 'x'), []);
      return '3';
    });
    const evUri = (await read(node))!;
    assert.match((await vscode.workspace.openTextDocument(evUri)).getText(), /^Resource 3: This is a plaintext resource/);
  });

  it('templates of every RFC 6570 form expand; a server without completions gets no suggestions', async () => {
    suite.person.once('template.var:q', async (q) => {
      assert.equal(await suggestionsFor(q, 'a'), undefined, 'rich-server has no completions capability');
      assert.match(q.method === 'input' ? (q.options.prompt ?? '') : '', /query parameter/);
      return 'a b';
    });
    suite.person.once('template.var:lang', '');
    const search = (await read({ server: 'rich', uriTemplate: 'mem://rich/search{?q,lang}' }))!;
    assert.equal(parseResourceDocumentUri(search)?.resourceUri, 'mem://rich/search?q=a%20b');
    assert.equal((await vscode.workspace.openTextDocument(search)).getText(), 'You asked for mem://rich/search?q=a%20b');

    const file = (await read({ server: 'rich', uriTemplate: 'file:///{+path}', values: { path: 'docs/a b.txt' } }))!;
    assert.equal(parseResourceDocumentUri(file)?.resourceUri, 'file:///docs/a%20b.txt');
    assert.equal(tabFor(file)?.label, 'a b.txt');
  });

  it('an open document is subscribed, updates itself on notifications/resources/updated, and closing it unsubscribes', async () => {
    // A server without resources/subscribe is never asked.
    await read({ server: 'rich', uri: 'mem://rich/config.json' });
    assert.deepEqual(await subscriptions('rich'), []);

    const good = server(suite.api, 'good');
    const uri = (await read({ server: 'good', uri: 'mem://good/hello.txt' }))!;
    const doc = await vscode.workspace.openTextDocument(uri);
    await eventually(async () => (await subscriptions('good')).includes('mem://good/hello.txt'), 'the subscription');
    const touched = await good.client!.callTool('touch', { uri: 'mem://good/hello.txt' });
    assert.equal(textOf(touched), 'notified mem://good/hello.txt', 'the server has the subscription');
    await waitFor(() => /\(touched \d+\)/.test(doc.getText()) && doc.getText(), 'the document to update itself', 15_000);
    assert.equal(doc.isDirty, false);

    const tab = tabFor(uri);
    assert.ok(tab, 'the document has a tab');
    await vscode.window.tabGroups.close(tab);
    await eventually(async () => (await subscriptions('good')).length === 0, 'the unsubscription');
    const after = await good.client!.callTool('touch', { uri: 'mem://good/hello.txt' });
    assert.equal(textOf(after), 'not subscribed: mem://good/hello.txt', 'the server was told');
  });

  it('a restarted server is subscribed again and its open documents refresh', async () => {
    const uri = (await read({ server: 'good', uri: 'mem://good/hello.txt' }))!;
    const doc = await vscode.workspace.openTextDocument(uri);
    await eventually(async () => (await subscriptions('good')).includes('mem://good/hello.txt'), 'the subscription');
    await server(suite.api, 'good').restart();
    await waitForState(suite.api, 'good', 'running', 30_000);
    await eventually(async () => (await subscriptions('good')).includes('mem://good/hello.txt'), 'the subscription after the restart');
    // A new process has never been touched: the document shows the first text again.
    await waitFor(() => doc.getText() === 'Hello, world!', () => `the refreshed document (it shows ${JSON.stringify(doc.getText())}${doc.isClosed ? ', closed' : ''})`, 15_000);
    const touched = await server(suite.api, 'good').client!.callTool('touch', { uri: 'mem://good/hello.txt' });
    assert.equal(textOf(touched), 'notified mem://good/hello.txt');
  });

  it('an open document whose read was forgotten still refreshes when its server restarts', async () => {
    const uri = (await read({ server: 'good', uri: 'mem://good/hello.txt' }))!;
    const doc = await vscode.workspace.openTextDocument(uri);
    await server(suite.api, 'good').client!.callTool('touch', { uri: 'mem://good/hello.txt' });
    await waitFor(() => /\(touched \d+\)/.test(doc.getText()), 'the touched text', 15_000);
    // Reads of the last 2 s are kept however the document looks (VS Code may be opening it).
    await new Promise((r) => setTimeout(r, 2100));
    await vscode.commands.executeCommand('mcpHost.internal.forgetResourceReads');
    await server(suite.api, 'good').restart();
    await waitForState(suite.api, 'good', 'running', 30_000);
    await waitFor(() => doc.getText() === 'Hello, world!', () => `the refreshed document (it shows ${JSON.stringify(doc.getText())})`, 15_000);
  });

  it('Copy URI copies the resource URI (tree item, template, or the active resource document)', async () => {
    const good = server(suite.api, 'good');
    const resource = good.lists.resources.find((r) => r.uri === 'mem://good/hello.txt')!;
    const copied = await vscode.commands.executeCommand<string>('mcpHost.copyResourceUri', { kind: 'resource', server: good, resource } satisfies TreeNode);
    assert.equal(copied, 'mem://good/hello.txt');
    assert.equal(await vscode.env.clipboard.readText(), 'mem://good/hello.txt');
    const template = good.lists.resourceTemplates[0];
    assert.equal(await vscode.commands.executeCommand<string>('mcpHost.copyResourceUri', { kind: 'resourceTemplate', server: good, template } satisfies TreeNode), 'mem://good/greeting/{name}');
    await read({ server: 'rich', uri: WEIRD });
    assert.equal(await vscode.commands.executeCommand<string>('mcpHost.copyResourceUri'), WEIRD, 'the active document’s resource');
    assert.equal(await vscode.env.clipboard.readText(), WEIRD);
  });

  it('a resource that cannot be read is an error naming the server and the URI', async () => {
    suite.person.always('resource.error', undefined);
    assert.equal(await read({ server: 'good', uri: 'mem://good/nope' }), undefined);
    const [error] = suite.person.questions('resource.error');
    assert.ok(error && error.method === 'message');
    assert.match(error.text, /"good" could not read mem:\/\/good\/nope: .*not found/i);
    assert.equal(await read({ server: 'no-such-server', uri: 'mem://x' }), undefined);
    assert.match((suite.person.questions('resource.error')[1] as { text: string }).text, /no server named "no-such-server"/);
  });
});
