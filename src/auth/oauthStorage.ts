// What the OAuth flow keeps in the secret store for one MCP URL: which authorization server and
// resource its tokens belong to (the binding), the tokens, the clients registered with each
// authorization server, and the authorization server a configured client is bound to. A stored
// value that is damaged is dropped with a log line, never trusted.

import type { TokenEndpointResponse } from 'oauth4webapi';
import { splitScopes } from './challenge';
import { canonicalResource } from './discovery';
import type { SecretStore } from './types';

export interface StoredClient {
  kind: 'dynamic' | 'manual';
  clientId: string;
  clientSecret?: string;
  authMethod?: string;
  redirectUri?: string;
}

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** ms since epoch */
  expiresAt?: number;
  obtainedAt: number;
  scopes: string[];
}

/** Where this MCP URL's tokens live: its authorization server and RFC 8707 resource. */
export interface Binding {
  issuer: string;
  resource: string;
}

/** The authorization server a configured (static) client was first used with. */
export interface StaticClientBinding {
  issuer: string;
}

const KEY_PREFIX = 'mcp-host.oauth.v1';

export class OAuthStorage {
  private binding?: Binding | null;
  private tokens?: StoredTokens | null;

  constructor(
    private readonly store: SecretStore,
    private readonly resourceUrl: URL,
    private readonly log: (line: string) => void,
  ) {}

  async loadBinding(): Promise<Binding | undefined> {
    if (this.binding === undefined) {
      this.binding = (await this.readJson(this.bindingKey(), 'sign-in record', isBinding)) ?? null;
    }
    return this.binding ?? undefined;
  }

  async loadTokens(): Promise<StoredTokens | undefined> {
    if (this.tokens === undefined) {
      const binding = await this.loadBinding();
      this.tokens = (binding && (await this.readJson(this.tokensKey(binding), 'tokens', isStoredTokens))) || null;
    }
    return this.tokens ?? undefined;
  }

  async saveTokens(ctx: Binding, result: TokenEndpointResponse, requested: readonly string[], previousRefresh: string | undefined): Promise<void> {
    const now = Date.now();
    const tokens: StoredTokens = {
      accessToken: result.access_token,
      refreshToken: result.refresh_token ?? previousRefresh,
      expiresAt: typeof result.expires_in === 'number' ? now + result.expires_in * 1000 : undefined,
      obtainedAt: now,
      scopes: result.scope !== undefined ? splitScopes(result.scope) : [...requested],
    };
    const binding: Binding = { issuer: ctx.issuer, resource: ctx.resource };
    await this.store.store(this.tokensKey(binding), JSON.stringify(tokens));
    await this.store.store(this.bindingKey(), JSON.stringify(binding));
    this.binding = binding;
    this.tokens = tokens;
  }

  async forgetTokens(reason: string): Promise<void> {
    const binding = await this.loadBinding();
    if (binding) await this.store.delete(this.tokensKey(binding));
    this.tokens = null;
    this.log(`tokens dropped: ${reason}`);
  }

  /** Signing out: the tokens, the binding and a configured client's binding; registrations stay. */
  async forgetSignIn(staticClientId: string | undefined): Promise<void> {
    const binding = await this.loadBinding();
    if (binding) await this.store.delete(this.tokensKey(binding));
    await this.store.delete(this.bindingKey());
    // A configured client is bound again to the next authorization server it is used with.
    if (staticClientId !== undefined) await this.store.delete(this.staticClientKey(staticClientId));
    this.tokens = null;
    this.binding = null;
  }

  loadClient(ctx: Binding): Promise<StoredClient | undefined> {
    return this.readJson(this.clientKey(ctx), 'client registration', isStoredClient);
  }

  async saveClient(ctx: Binding, record: StoredClient): Promise<void> {
    await this.store.store(this.clientKey(ctx), JSON.stringify(record));
  }

  async deleteClient(ctx: Binding): Promise<void> {
    await this.store.delete(this.clientKey(ctx));
  }

  loadStaticClientBinding(clientId: string): Promise<StaticClientBinding | undefined> {
    return this.readJson(this.staticClientKey(clientId), 'configured client binding', isStaticClientBinding);
  }

  async saveStaticClientBinding(clientId: string, binding: StaticClientBinding): Promise<void> {
    await this.store.store(this.staticClientKey(clientId), JSON.stringify(binding));
  }

  private bindingKey(): string {
    return `${KEY_PREFIX}/binding/${canonicalResource(this.resourceUrl)}`;
  }
  private tokensKey(b: Binding): string {
    return `${KEY_PREFIX}/tokens/${b.issuer} ${b.resource}`;
  }
  private staticClientKey(clientId: string): string {
    return `${KEY_PREFIX}/static-client/${canonicalResource(this.resourceUrl)} ${clientId}`;
  }
  private clientKey(ctx: Binding): string {
    return `${KEY_PREFIX}/client/${ctx.issuer} ${ctx.resource}`;
  }

  /** A stored value that does not parse or has the wrong shape is dropped with a log line. */
  private async readJson<T>(key: string, what: string, valid: (v: unknown) => v is T): Promise<T | undefined> {
    const text = await this.store.get(key);
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (valid(value)) return value;
    } catch {
      // fall through
    }
    this.log(`the stored ${what} is damaged and was ignored`);
    await this.store.delete(key);
    return undefined;
  }
}

function isStaticClientBinding(v: unknown): v is StaticClientBinding {
  return !!v && typeof v === 'object' && typeof (v as StaticClientBinding).issuer === 'string';
}

function isBinding(v: unknown): v is Binding {
  const b = v as Binding;
  return !!b && typeof b === 'object' && typeof b.issuer === 'string' && typeof b.resource === 'string';
}

function isStoredTokens(v: unknown): v is StoredTokens {
  const t = v as StoredTokens;
  return (
    !!t &&
    typeof t === 'object' &&
    typeof t.accessToken === 'string' &&
    t.accessToken.length > 0 &&
    typeof t.obtainedAt === 'number' &&
    Array.isArray(t.scopes) &&
    (t.refreshToken === undefined || typeof t.refreshToken === 'string') &&
    (t.expiresAt === undefined || typeof t.expiresAt === 'number')
  );
}

function isStoredClient(v: unknown): v is StoredClient {
  const c = v as StoredClient;
  return !!c && typeof c === 'object' && (c.kind === 'dynamic' || c.kind === 'manual') && typeof c.clientId === 'string' && c.clientId.length > 0;
}
