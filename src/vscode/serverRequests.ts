import * as vscode from 'vscode';
import type { ClientRequestHandlers } from '../protocol/client';
import type { Root } from '../protocol/schemas';
import type { HostController } from './hostController';
import { createElicitationHandler } from './usage/requests/elicitation';
import { createSamplingHandler, SamplingConsent, type ServerRef } from './usage/requests/sampling';
import { usageServices } from './services';

/** roots/list: the workspace folders, as file URIs. */
export function createRootsHandler(): () => Root[] {
  return () => (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name }));
}

/**
 * The handlers of the requests a server sends us, one set per server so that every question
 * names the server that asks: roots/list (the workspace folders), sampling/createMessage
 * (vscode.lm, with the person's consent) and elicitation/create (form and URL modes).
 * Installed before any server starts, so each declares these capabilities in `initialize`.
 */
export function createServerRequestHandlers(context: vscode.ExtensionContext, controller: HostController): (server: ServerRef) => ClientRequestHandlers {
  const consent = new SamplingConsent(context.globalState);
  const listRoots = createRootsHandler();
  // A server's waiting questions go when it stops; "decline all" lasts until it starts again.
  context.subscriptions.push(
    controller.registry.onDidChangeState(({ server, state }) => {
      if (state.kind === 'stopping' || state.kind === 'stopped' || state.kind === 'error') usageServices.questions.drop(server.id);
      else if (state.kind === 'starting') usageServices.questions.resume(server.id);
    }),
  );
  return (server) => {
    const ref: ServerRef = { id: server.id, name: server.name };
    // The server's own log (redacted, and kept for its error details), else its channel.
    const log = () => controller.registry.get(ref.id)?.logger ?? controller.channelFor(ref);
    return {
      listRoots,
      createMessage: createSamplingHandler(ref, consent, log),
      elicit: createElicitationHandler(ref, log),
    };
  };
}
