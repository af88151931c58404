import * as vscode from 'vscode';
import { loadRemote } from '../host/loadRemote';
import type { AuthorizationInteraction, SecretStore, ServerAuthorization, StaticClientConfig } from '../auth/types';
import type { Logger } from '../util/logger';
import { usageServices } from './services';

/** Tokens and client registrations live in VS Code's SecretStorage under this prefix. */
const SECRET_PREFIX = 'mcpHost.oauth:';

/** SecretStorage as the auth floor's store, with our keys kept apart from the inputs'. */
function secretStorageStore(secrets: vscode.SecretStorage): SecretStore {
  return {
    get: (key) => secrets.get(SECRET_PREFIX + key),
    store: (key, value) => secrets.store(SECRET_PREFIX + key, value),
    delete: (key) => secrets.delete(SECRET_PREFIX + key),
  };
}

/**
 * How sign-in talks to a person in VS Code: a modal that names the server and the scopes, the
 * system browser, and a loopback redirect mapped through asExternalUri (so it also works when
 * VS Code itself runs in a browser, where the loopback address is forwarded).
 */
function vscodeInteraction(): AuthorizationInteraction {
  return {
    async confirmSignIn({ serverName, authorizationServer, scopes }) {
      const scopeText = scopes.length > 0 ? vscode.l10n.t(' for the scopes {0}', scopes.map((s) => `"${s}"`).join(', ')) : '';
      const signIn = vscode.l10n.t('Sign In');
      const answer = await usageServices.prompter.message(
        'info',
        vscode.l10n.t('MCP server "{0}" wants you to sign in at {1}{2}.', serverName, hostOf(authorizationServer), scopeText),
        { key: 'signin.confirm', modal: true, detail: vscode.l10n.t("Your browser opens the sign-in page. The token is kept in VS Code's secret storage and sent only to this server.") },
        signIn,
      );
      return answer === signIn;
    },
    async openBrowser(url) {
      const opened = await usageServices.prompter.openExternal(vscode.Uri.parse(url.href, true));
      if (!opened) throw new Error('the browser could not be opened for the sign-in page');
    },
    async externalRedirectUri(local) {
      const external = new URL((await vscode.env.asExternalUri(vscode.Uri.parse(local.href, true))).toString(true));
      // A forwarding proxy (VS Code in a browser) may map only the port, e.g. to /proxy/PORT/:
      // keep our callback path under it, as the proxy forwards what follows.
      if (external.href !== local.href && !external.pathname.endsWith(local.pathname)) {
        external.pathname = `${external.pathname.replace(/\/+$/, '')}${local.pathname}`;
      }
      return external;
    },
    async askClientId({ serverName, authorizationServer, redirectUri }) {
      const clientId = await usageServices.prompter.input({
        key: 'signin.clientId',
        title: `Sign in to "${serverName}"`,
        prompt: `${hostOf(authorizationServer)} does not let MCP Host register itself. Register an OAuth client there with the redirect URI ${redirectUri}, then enter its client id.`,
        ignoreFocusOut: true,
      });
      return clientId ? { clientId } : undefined;
    },
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Builds a server's authorization: OAuth with its tokens in SecretStorage. */
export function createServerAuthorization(
  secrets: vscode.SecretStorage,
  server: { name: string; url: string; staticClient?: StaticClientConfig },
  logger: Logger,
): ServerAuthorization {
  return new (loadRemote().OAuthProvider)({
    serverName: server.name,
    resource: server.url,
    store: secretStorageStore(secrets),
    interaction: vscodeInteraction(),
    staticClient: server.staticClient,
    clientName: 'MCP Host for VS Code',
    log: (line) => logger.info(`[auth] ${line}`),
  });
}
