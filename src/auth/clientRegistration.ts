// The OAuth client the flow signs in with, in the MCP order: a configured (static) client, our
// Client ID Metadata Document where the authorization server takes one, a stored or new dynamic
// registration (RFC 7591), else a client id a person registered by hand. A configured client is
// bound to the first authorization server it is used with, so its secret never goes to another.

import { ClientSecretPost, dynamicClientRegistrationRequest, None, type AuthorizationServer, type Client, type ClientAuth } from 'oauth4webapi';
import type { AuthContext } from './authServerContext';
import { assertSecureEndpoint, isLoopbackHttp, type Fetch } from './discovery';
import { oauthHttpOptions } from './oauthHttp';
import type { OAuthStorage, StoredClient } from './oauthStorage';
import type { AuthorizationInteraction, StaticClientConfig } from './types';

/** A client as the flow uses it. `kind` decides what may be re-registered and what is stored. */
export interface ResolvedClient {
  readonly kind: 'static' | 'cimd' | 'dynamic' | 'manual';
  readonly client: Client;
  readonly auth: ClientAuth;
}

export interface OAuthClientsOptions {
  serverName: string;
  staticClient?: StaticClientConfig;
  clientMetadataUrl?: string;
  clientName?: string;
}

export class OAuthClients {
  constructor(
    private readonly options: OAuthClientsOptions,
    private readonly storage: OAuthStorage,
    private readonly fetchFn: Fetch,
    private readonly log: (line: string) => void,
  ) {}

  /** The registration stored for this authorization server (none with a configured client). */
  async loadStored(ctx: AuthContext): Promise<StoredClient | undefined> {
    if (this.options.staticClient) return undefined;
    return this.storage.loadClient(ctx);
  }

  /** Static first, then CIMD, then a stored or new dynamic registration, then a person. */
  async resolve(ctx: AuthContext, redirectUri: string, stored: StoredClient | undefined, interaction: AuthorizationInteraction): Promise<ResolvedClient> {
    await this.checkStaticClientBinding(ctx);
    const fixed = this.fixedClient(ctx);
    if (fixed) return fixed;

    if (stored?.kind === 'dynamic' && stored.redirectUri !== redirectUri) {
      this.log('the redirect port changed since the client was registered; registering again');
      stored = undefined;
    }
    if (stored) return fromStored(ctx, stored);
    if (ctx.as.registration_endpoint) return this.register(ctx, ctx.as.registration_endpoint, redirectUri);

    const answer = await interaction.askClientId?.({
      serverName: this.options.serverName,
      authorizationServer: ctx.issuer,
      redirectUri,
    });
    if (!answer?.clientId) {
      throw new Error(
        `The authorization server ${ctx.issuer} offers no client registration. Register a client there with the redirect URI ${redirectUri} ` +
          `and set "oauth": { "clientId": … } for server '${this.options.serverName}'.`,
      );
    }
    const record: StoredClient = { kind: 'manual', clientId: answer.clientId, clientSecret: answer.clientSecret, redirectUri };
    await this.storage.saveClient(ctx, record);
    return fromStored(ctx, record);
  }

  /** The client to refresh with: the one the tokens were obtained with. */
  async current(ctx: AuthContext): Promise<ResolvedClient | undefined> {
    await this.checkStaticClientBinding(ctx);
    const fixed = this.fixedClient(ctx);
    if (fixed) return fixed;
    const stored = await this.loadStored(ctx);
    return stored ? fromStored(ctx, stored) : undefined;
  }

  /**
   * A configured client (id and secret in the configuration) belongs to one authorization server;
   * the configuration does not name it, so it is the first one the client is used with, stored
   * here. Discovery naming another one later (the server, or whoever answers for it, says so) is
   * refused: the secret is not sent there. Signing out forgets the binding.
   */
  async checkStaticClientBinding(ctx: AuthContext): Promise<void> {
    const s = this.options.staticClient;
    if (!s) return;
    const bound = await this.storage.loadStaticClientBinding(s.clientId);
    if (!bound) {
      await this.storage.saveStaticClientBinding(s.clientId, { issuer: ctx.issuer });
      this.log(`the configured client ${s.clientId} is bound to the authorization server ${ctx.issuer}`);
      return;
    }
    if (bound.issuer === ctx.issuer) return;
    throw new Error(
      `Server '${this.options.serverName}' now names the authorization server ${ctx.issuer}, but its configured OAuth client ${s.clientId} ` +
        `belongs to ${bound.issuer}; not signing in there (the client secret is not sent to another authorization server). ` +
        `If the server really moved, check its "oauth" client in the configuration, then sign out of it to bind the client again.`,
    );
  }

  /** RFC 7591 dynamic client registration; the answer is stored for the next sign-in. */
  private async register(ctx: AuthContext, registrationEndpoint: string, redirectUri: string): Promise<ResolvedClient> {
    assertSecureEndpoint(new URL(registrationEndpoint), 'registration endpoint');
    const wanted = ['none', 'client_secret_basic', 'client_secret_post'].find((m) => authMethodsOf(ctx.as).includes(m)) ?? 'client_secret_basic';
    const response = await dynamicClientRegistrationRequest(
      ctx.as,
      {
        client_name: this.options.clientName ?? 'MCP Host',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: wanted,
        // client-registration.mdx: "native" for a loopback redirect (a desktop app or CLI),
        // "web" for a redirect served from another host (a browser-based VS Code).
        application_type: applicationTypeFor(redirectUri),
      },
      oauthHttpOptions(this.fetchFn, ctx.issuer),
    );
    const registered = await readRegistration(response);
    const record: StoredClient = {
      kind: 'dynamic',
      clientId: registered.client_id,
      clientSecret: typeof registered.client_secret === 'string' ? registered.client_secret : undefined,
      authMethod: typeof registered.token_endpoint_auth_method === 'string' ? registered.token_endpoint_auth_method : undefined,
      redirectUri,
    };
    await this.storage.saveClient(ctx, record);
    this.log(`registered a client with ${ctx.issuer} (dynamic client registration)`);
    return fromStored(ctx, record);
  }

  /** The configured static client, or our CIMD URL where the AS supports it. Nothing stored. */
  private fixedClient(ctx: AuthContext): ResolvedClient | undefined {
    const s = this.options.staticClient;
    if (s) {
      const method = chooseAuthMethod(ctx.as, s.clientSecret, undefined);
      return { kind: 'static', client: { client_id: s.clientId, token_endpoint_auth_method: method }, auth: clientAuth(method, s.clientSecret) };
    }
    if (this.options.clientMetadataUrl && ctx.as.client_id_metadata_document_supported === true) {
      return { kind: 'cimd', client: { client_id: this.options.clientMetadataUrl, token_endpoint_auth_method: 'none' }, auth: None() };
    }
    return undefined;
  }
}

function fromStored(ctx: AuthContext, stored: StoredClient): ResolvedClient {
  const method = chooseAuthMethod(ctx.as, stored.clientSecret, stored.authMethod);
  return {
    kind: stored.kind,
    client: { client_id: stored.clientId, token_endpoint_auth_method: method },
    auth: clientAuth(method, stored.clientSecret),
  };
}

function authMethodsOf(as: AuthorizationServer): string[] {
  // RFC 8414 §2: absent means client_secret_basic.
  return as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
}

/** What the registration said, else what the AS supports for a client with (or without) a secret. */
function chooseAuthMethod(as: AuthorizationServer, secret: string | undefined, registered: string | undefined): string {
  if (registered && ['none', 'client_secret_basic', 'client_secret_post'].includes(registered)) {
    return registered !== 'none' && !secret ? 'none' : registered;
  }
  if (!secret) return 'none';
  const supported = authMethodsOf(as);
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  if (supported.includes('none')) return 'none';
  return 'client_secret_basic';
}

/**
 * client_secret_basic (RFC 6749 §2.3.1) with the usual form encoding: oauth4webapi's own
 * also escapes '-', '.', '_' … which servers that do not decode (the conformance suite's,
 * the official SDK's) then refuse. Both forms are the same to a server that decodes.
 */
function basicAuth(secret: string): ClientAuth {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${Buffer.from(`${enc(client.client_id)}:${enc(secret)}`).toString('base64')}`);
  };
}

function clientAuth(method: string, secret: string | undefined): ClientAuth {
  if (method === 'client_secret_basic' && secret) return basicAuth(secret);
  if (method === 'client_secret_post' && secret) return ClientSecretPost(secret);
  return None();
}

/**
 * The RFC 7591 §3.2 answer, read leniently: many servers (the official SDK's among them) leave
 * out client_secret_expires_at, which oauth4webapi's strict reader requires.
 */
async function readRegistration(response: Response): Promise<Record<string, unknown> & { client_id: string }> {
  let body: unknown;
  try {
    body = await response.json(); // bounded: the fetch reads at most METADATA_MAX_BYTES
  } catch {
    throw new Error(`client registration answered HTTP ${response.status} without JSON`);
  }
  const b = (body ?? {}) as Record<string, unknown>;
  if (response.status !== 201 && response.status !== 200) {
    const code = typeof b.error === 'string' ? b.error : `HTTP ${response.status}`;
    const desc = typeof b.error_description === 'string' ? ` (${b.error_description})` : '';
    throw new Error(`client registration was refused: ${code}${desc}`);
  }
  if (typeof b.client_id !== 'string' || b.client_id.length === 0) throw new Error('client registration answered without a client_id');
  return b as Record<string, unknown> & { client_id: string };
}

/** OpenID Connect Dynamic Client Registration's application_type for a redirect URI. */
export function applicationTypeFor(redirectUri: string): 'native' | 'web' {
  try {
    return isLoopbackHttp(new URL(redirectUri)) ? 'native' : 'web';
  } catch {
    return 'web';
  }
}
