import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Resource, ResourceTemplate } from '../../../protocol/schemas';
import type { HostController } from '../../hostController';
import type { TreeNode } from '../../serverTree';
import { usageServices } from '../../services';
import { freshListsOf } from '../../freshLists';
import type { PickItem } from '../../prompter';
import { openResourceDocuments } from './openDocuments';
import { ResourceFileSystem } from './fileSystem';
import { languageFor } from './mime';
import { RESOURCE_SCHEME, parseResourceDocumentUri, resourceDocumentUri } from './resourceUri';
import { ResourceSubscriptions } from './subscriptions';
import { fillTemplate } from './templates';
import { errorMessage } from '../../../util/errorMessage';
import { Commands, InternalCommands } from '../../commandIds';

export interface ResourcesFeature {
  readonly fs: ResourceFileSystem;
  readonly subscriptions: ResourceSubscriptions;
}

/** Finds a server by the name in a document URI (exactly, else ignoring case). */
export function serverByName(controller: HostController, name: string): ServerConnection | undefined {
  const servers = controller.registry.servers;
  return servers.find((s) => s.name === name) ?? servers.find((s) => s.name.toLowerCase() === name.toLowerCase());
}

/**
 * Opens a resource as a document: text in a text editor with the language of its MIME type,
 * blobs with VS Code's editor for the file type (image preview, or the binary/hex view).
 * Returns the document URI, or undefined when the read failed (the person was told why).
 */
export async function openResource(
  feature: ResourcesFeature,
  server: ServerConnection,
  resourceUri: string,
  hints: { name?: string; mimeType?: string } = {},
): Promise<vscode.Uri | undefined> {
  const docUri = resourceDocumentUri(server.name, resourceUri, hints);
  let entry;
  try {
    entry = await feature.fs.load(docUri, { fresh: true });
  } catch (err) {
    void usageServices.prompter.message('error', errorMessage(err), { key: 'resource.error' });
    return undefined;
  }
  if (entry.kind === 'text') {
    let doc = await vscode.workspace.openTextDocument(docUri);
    const language = languageFor(entry.mimeType ?? hints.mimeType);
    if (language && doc.languageId !== language && (await vscode.languages.getLanguages()).includes(language)) {
      doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    }
    await vscode.window.showTextDocument(doc, { preview: true });
  } else {
    await vscode.commands.executeCommand('vscode.open', docUri);
  }
  feature.subscriptions.schedule();
  return docUri;
}

type ResourcePick = PickItem & { server?: ServerConnection; resource?: Resource; template?: ResourceTemplate };

async function pickResource(controller: HostController): Promise<ResourcePick | undefined> {
  const items: ResourcePick[] = [];
  const servers = controller.registry.servers.filter((s) => s.state.kind === 'running' && s.state.capabilities.resources).sort((a, b) => a.name.localeCompare(b.name));
  await freshListsOf(servers, ['resources']);
  for (const server of servers) {
    const { resources, resourceTemplates } = server.lists;
    if (resources.length + resourceTemplates.length === 0) continue;
    items.push({ label: server.name, kind: vscode.QuickPickItemKind.Separator });
    for (const resource of resources) {
      items.push({ label: `$(${resource.mimeType?.startsWith('image/') ? 'file-media' : 'file'}) ${resource.title ?? resource.name}`, description: resource.uri, detail: resource.description, server, resource });
    }
    for (const template of resourceTemplates) {
      items.push({ label: `$(file-code) ${template.title ?? template.name}`, description: template.uriTemplate, detail: template.description ?? 'Resource template: asks for its variables', server, template });
    }
  }
  if (items.length === 0) {
    void usageServices.prompter.message('info', vscode.l10n.t('MCP Host: no running server offers resources.'), { key: 'resource.none' });
    return undefined;
  }
  return usageServices.prompter.pick(items, { key: 'resource.pick', title: vscode.l10n.t('Read Resource'), placeHolder: vscode.l10n.t('A resource or a template of any running server'), matchOnDescription: true, matchOnDetail: true });
}

/** Fills a template, then opens the resource it names. */
async function openFromTemplate(feature: ResourcesFeature, server: ServerConnection, template: ResourceTemplate, preset?: Record<string, string>): Promise<vscode.Uri | undefined> {
  let uri: string | undefined;
  try {
    uri = await fillTemplate(server, template, preset);
  } catch (err) {
    void usageServices.prompter.message('error', vscode.l10n.t('MCP Host: {0}', errorMessage(err)), { key: 'resource.error' });
    return undefined;
  }
  if (uri === undefined) return undefined;
  return openResource(feature, server, uri, { mimeType: template.mimeType });
}

interface ReadArgument {
  /** A server name. */
  server: string;
  uri?: string;
  uriTemplate?: string;
  /** Template variables given in advance (the rest are asked). */
  values?: Record<string, string>;
}

function isReadArgument(arg: unknown): arg is ReadArgument {
  return !!arg && typeof arg === 'object' && typeof (arg as ReadArgument).server === 'string' && !('kind' in arg);
}

export function registerResources(controller: HostController, options: { testMode: boolean }): vscode.Disposable[] {
  const fs = new ResourceFileSystem((name) => serverByName(controller, name), openResourceDocuments);
  const subscriptions = new ResourceSubscriptions(controller.registry, fs);
  const feature: ResourcesFeature = { fs, subscriptions };

  const readResource = async (arg?: unknown): Promise<vscode.Uri | undefined> => {
    const node = arg as TreeNode | undefined;
    if (node && typeof node === 'object' && 'kind' in node) {
      if (node.kind === 'resource') return openResource(feature, node.server, node.resource.uri, { name: node.resource.name, mimeType: node.resource.mimeType });
      if (node.kind === 'resourceTemplate') return openFromTemplate(feature, node.server, node.template);
    }
    if (isReadArgument(arg)) {
      const server = serverByName(controller, arg.server);
      if (!server) {
        void usageServices.prompter.message('error', vscode.l10n.t('MCP Host: no server named "{0}".', arg.server), { key: 'resource.error' });
        return undefined;
      }
      if (arg.uriTemplate !== undefined) {
        const template = server.lists.resourceTemplates.find((t) => t.uriTemplate === arg.uriTemplate) ?? { uriTemplate: arg.uriTemplate, name: arg.uriTemplate };
        return openFromTemplate(feature, server, template, arg.values);
      }
      if (arg.uri !== undefined) {
        const listed = server.lists.resources.find((r) => r.uri === arg.uri);
        return openResource(feature, server, arg.uri, { name: listed?.name, mimeType: listed?.mimeType });
      }
    }
    const picked = await pickResource(controller);
    if (!picked?.server) return undefined;
    if (picked.resource) return openResource(feature, picked.server, picked.resource.uri, { name: picked.resource.name, mimeType: picked.resource.mimeType });
    if (picked.template) return openFromTemplate(feature, picked.server, picked.template);
    return undefined;
  };

  const copyUri = async (arg?: unknown): Promise<string | undefined> => {
    let text: string | undefined;
    const node = arg as TreeNode | undefined;
    if (node && typeof node === 'object' && 'kind' in node) {
      if (node.kind === 'resource') text = node.resource.uri;
      else if (node.kind === 'resourceTemplate') text = node.template.uriTemplate;
    } else if (arg instanceof vscode.Uri) {
      text = parseResourceDocumentUri(arg)?.resourceUri;
    } else {
      const active = vscode.window.activeTextEditor?.document.uri ?? activeTabUri();
      text = active ? parseResourceDocumentUri(active)?.resourceUri : undefined;
      if (text === undefined) {
        const picked = await pickResource(controller);
        text = picked?.resource?.uri ?? picked?.template?.uriTemplate;
      }
    }
    if (text === undefined) return undefined;
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`Copied ${text}`, 3000);
    return text;
  };

  const disposables: vscode.Disposable[] = [
    fs,
    subscriptions,
    vscode.workspace.registerFileSystemProvider(RESOURCE_SCHEME, fs, {
      isCaseSensitive: true,
      isReadonly: new vscode.MarkdownString('An MCP resource, read from its server; it updates itself when the server says it changed.'),
    }),
    vscode.commands.registerCommand(Commands.readResource, readResource),
    vscode.commands.registerCommand(Commands.copyResourceUri, copyUri),
  ];
  if (options.testMode) {
    // For tests: what is subscribed on a server, once the requests sent so far are answered.
    disposables.push(
      vscode.commands.registerCommand(InternalCommands.resourceSubscriptions, async (serverName: string) => {
        await subscriptions.settled();
        const server = serverByName(controller, serverName);
        return server ? subscriptions.subscribedOn(server.id) : [];
      }),
      // For tests: what happens when VS Code briefly held a document in neither a tab nor its text documents.
      vscode.commands.registerCommand(InternalCommands.forgetResourceReads, () => fs.forgetExcept(new Set())),
    );
  }
  return disposables;
}

function activeTabUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  return undefined;
}
