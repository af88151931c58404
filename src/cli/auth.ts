import * as path from 'node:path';
import { loadRemote } from '../host/loadRemote';
import type { AuthorizationInteraction, ServerAuthorization, StaticClientConfig } from '../auth/types';
import { homeDirectory } from '../util/homeDirectory';
import type { CliIo } from './io';

/** Where the CLI keeps OAuth tokens: an owner-only file, unless told otherwise. Undefined: no home directory to keep it in. */
export function tokenFilePath(env: NodeJS.ProcessEnv): string | undefined {
  if (env.MCP_HOST_TOKEN_FILE) return env.MCP_HOST_TOKEN_FILE;
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'mcp-host', 'oauth-tokens.json');
  const home = homeDirectory(env);
  return home === undefined ? undefined : path.join(home, '.config', 'mcp-host', 'oauth-tokens.json');
}

/**
 * A terminal has no modal and may have no browser: sign-in prints the URL to open and waits for
 * the browser to come back to the loopback redirect. Only a terminal a person sits at signs in.
 */
function terminalInteraction(io: CliIo): AuthorizationInteraction {
  return {
    async confirmSignIn({ serverName, authorizationServer, scopes }) {
      const scopeText = scopes.length > 0 ? ` (scopes: ${scopes.join(' ')})` : '';
      io.stderr(`mcp-host: ${serverName} needs you to sign in at ${authorizationServer}${scopeText}.\n`);
      return true;
    },
    async openBrowser(url) {
      io.stderr(`mcp-host: open this address in a browser to sign in, then come back here:\n\n  ${url.href}\n\n`);
    },
  };
}

export function cliAuthorization(options: {
  serverName: string;
  url: string;
  staticClient?: StaticClientConfig;
  /** False keeps tokens in memory (gone when the command ends). */
  persist: boolean;
  io: CliIo;
}): ServerAuthorization {
  const { io } = options;
  const { OAuthProvider } = loadRemote();
  const provider = new OAuthProvider({
    serverName: options.serverName,
    resource: options.url,
    store: tokenStore(options.persist, io),
    interaction: terminalInteraction(io),
    staticClient: options.staticClient,
    clientName: 'MCP Host CLI',
    log: io.env.MCP_HOST_DEBUG_AUTH ? (line) => io.stderr(`mcp-host [auth] ${line}\n`) : undefined,
  });
  provider.setInteractive(io.interactive ?? false);
  return provider;
}

/** The token file; memory when asked (--no-token-store), or when there is no home directory to keep the file in (as --no-token-store). */
function tokenStore(persist: boolean, io: CliIo) {
  const { FileSecretStore, MemorySecretStore } = loadRemote();
  const file = persist ? tokenFilePath(io.env) : undefined;
  return file === undefined ? new MemorySecretStore() : new FileSecretStore(file);
}
