// OAuth for one remote MCP server, as the MCP authorization spec (2025-11-25) describes:
// 401 → resource metadata → AS metadata → a client → authorization code + PKCE → tokens,
// refresh, step-up on insufficient_scope. oauth4webapi does the OAuth mechanics; this class
// decides what a 401 or 403 leads to (retry, refresh, sign-in, step-up) and bounds how often.
// The parts: discovery (authServerContext.ts), the client (clientRegistration.ts), the browser
// flow (authorizationCode.ts), refresh (tokenRefresh.ts), what is stored (oauthStorage.ts) and
// the HTTP and error wording for oauth4webapi (oauthHttp.ts). Nothing secret is ever put in a
// log line or an error message.

import type { AuthorizationServer } from 'oauth4webapi';
import { runAuthorizationCodeFlow } from './authorizationCode';
import { AuthServerLocator } from './authServerContext';
import { parseBearerChallenge, type BearerChallenge } from './challenge';
import { OAuthClients, type ResolvedClient } from './clientRegistration';
import type { Fetch } from './discovery';
import { describeOAuthError, isStaleClientError, oauthErrorCode, oauthFetch } from './oauthHttp';
import { OAuthStorage, type StoredTokens } from './oauthStorage';
import { TokenRefresher } from './tokenRefresh';
import {
  AuthorizationRequiredError,
  type AuthChallenge,
  type AuthorizationInteraction,
  type HttpAuthProvider,
  type SecretStore,
  type StaticClientConfig,
} from './types';

export { applicationTypeFor } from './clientRegistration';

export interface OAuthProviderOptions {
  /** The configured server name, for prompts, logs and errors. */
  serverName: string;
  /** The MCP endpoint URL. */
  resource: string;
  store: SecretStore;
  interaction?: AuthorizationInteraction;
  /** A pre-registered client (`oauth` in mcp.json); used before anything else. */
  staticClient?: StaticClientConfig;
  /** Our Client ID Metadata Document URL (an https URL), used where the AS supports CIMD. */
  clientMetadataUrl?: string;
  clientName?: string;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  /** Whether a sign-in may start by itself; false until setInteractive(true). */
  interactive?: boolean;
  /** How long to wait for the browser to come back (default 5 minutes). */
  callbackTimeoutMs?: number;
  /** Loopback port to use when no registered redirect URI names one (default: any free port). */
  loopbackPort?: number;
  /** Refresh this long before expiry (default one minute, at most half the token's life). */
  refreshMarginMs?: number;
}

interface SignInRequest {
  /** Step-up: the scope union to ask for (bounded per scope set, not by the 401 window). */
  readonly scopes?: readonly string[];
  readonly challenge?: BearerChallenge;
  readonly reason: string;
}

const DEFAULT_REFRESH_MARGIN_MS = 60_000;
/** A token this young that is refused is retried as is: another request just replaced it. */
const FRESH_TOKEN_MS = 3_000;
/** Sign-ins started by 401s within this window are counted; more than two is a loop. */
const SIGN_IN_WINDOW_MS = 2 * 60_000;
const MAX_SIGN_INS_PER_WINDOW = 2;
/** Step-up sign-ins for the same scope set. */
const MAX_STEP_UPS_PER_SCOPE_SET = 1;

export class OAuthProvider implements HttpAuthProvider {
  private readonly resourceUrl: URL;
  private readonly fetchFn: Fetch;
  private readonly storage: OAuthStorage;
  private readonly locator: AuthServerLocator;
  private readonly clients: OAuthClients;
  private readonly refresher: TokenRefresher;
  private interactive: boolean;
  private signingIn?: Promise<void>;
  private readonly signInTimes: number[] = [];
  private readonly stepUps = new Map<string, number>();
  /** Closes the loopback listener of a sign-in in progress. */
  private abortSignIn?: () => Promise<void>;

  constructor(private readonly options: OAuthProviderOptions) {
    this.resourceUrl = new URL(options.resource);
    this.fetchFn = oauthFetch(options.fetch);
    this.interactive = options.interactive ?? false;
    const log = (line: string) => this.log(line);
    this.storage = new OAuthStorage(options.store, this.resourceUrl, log);
    this.locator = new AuthServerLocator(this.resourceUrl, this.fetchFn, options.serverName, log);
    this.clients = new OAuthClients(options, this.storage, this.fetchFn, log);
    this.refresher = new TokenRefresher(this.storage, this.locator, this.clients, this.fetchFn, options.serverName, log);
  }

  /** When false, a challenge that needs a person rejects with AuthorizationRequiredError. */
  setInteractive(allowed: boolean): void {
    this.interactive = allowed;
  }

  /** Stops a sign-in that waits for the browser (the server was stopped). Tokens stay. */
  async dispose(): Promise<void> {
    await this.abortSignIn?.();
  }

  async hasToken(): Promise<boolean> {
    return (await this.storage.loadTokens()) !== undefined;
  }

  /** Forgets this server's tokens (and so any silent sign-in). Client registrations stay. */
  async signOut(): Promise<void> {
    await this.storage.forgetSignIn(this.options.staticClient?.clientId);
    this.stepUps.clear();
    this.signInTimes.length = 0;
    this.log('signed out; tokens forgotten');
  }

  async authorizationHeader(resource: URL): Promise<string | undefined> {
    // A token goes only to the origin it was issued for.
    if (!this.sameOrigin(resource)) return undefined;
    let tokens = await this.storage.loadTokens();
    if (!tokens) return undefined;
    if (tokens.refreshToken && this.expiresSoon(tokens)) {
      await this.refresher.refreshShared('the access token is about to expire');
      tokens = await this.storage.loadTokens();
      if (!tokens) return undefined;
    }
    if (tokens.expiresAt !== undefined && tokens.expiresAt <= Date.now()) return undefined;
    return `Bearer ${tokens.accessToken}`;
  }

  async handleChallenge(challenge: AuthChallenge, resource: URL): Promise<'retry' | 'fail'> {
    if (!this.sameOrigin(resource)) return 'fail';
    const bearer = parseBearerChallenge(challenge.wwwAuthenticate);
    if (challenge.status === 403) {
      if (bearer.error !== 'insufficient_scope') return 'fail';
      return this.stepUp(bearer);
    }
    if (challenge.status !== 401) return 'fail';

    // Another request is already fixing this: share its outcome.
    if (this.signingIn) {
      await this.signingIn;
      return (await this.storage.loadTokens()) ? 'retry' : 'fail';
    }
    const refreshing = this.refresher.inFlight;
    if (refreshing && (await refreshing)) return 'retry';

    const tokens = await this.storage.loadTokens();
    if (tokens) {
      const current = `Bearer ${tokens.accessToken}`;
      // Another request replaced the token since this one was sent: try the new one.
      if (challenge.authorization !== undefined && challenge.authorization !== current) return 'retry';
      if (challenge.authorization === undefined && Date.now() - tokens.obtainedAt < FRESH_TOKEN_MS) return 'retry';
      // Our current token was refused. The server may have moved to another authorization
      // server (client-registration.mdx, "Authorization Server Binding"): its metadata says.
      const moved = await this.authorizationServerMoved(bearer.resourceMetadata);
      if (moved) {
        await this.storage.forgetTokens(`the server now names the authorization server ${moved}`);
      } else {
        if (tokens.refreshToken && (await this.refresher.refreshShared('the server refused the access token'))) return 'retry';
        await this.storage.forgetTokens('the server refused the access token and it could not be refreshed');
      }
    }
    await this.signInShared({ challenge: bearer, reason: 'the server asks for authorization' });
    return (await this.storage.loadTokens()) ? 'retry' : 'fail';
  }

  /** Whether the server publishes protected-resource metadata (a metadata mismatch counts: sign-in then says why it stops). */
  async advertisesOAuth(resource: URL): Promise<boolean> {
    if (!this.sameOrigin(resource)) return false;
    return this.locator.advertisesOAuth();
  }

  /**
   * Reads the protected resource metadata again; the new issuer when it differs from the one our
   * tokens came from (the sign-in that follows then uses it, with a client of its own), else
   * undefined. A failed read changes nothing.
   */
  private async authorizationServerMoved(headerMetadataUrl: string | undefined): Promise<string | undefined> {
    const binding = await this.storage.loadBinding();
    if (!binding) return undefined;
    try {
      const ctx = await this.locator.discover(headerMetadataUrl, true);
      return ctx.issuer !== binding.issuer ? ctx.issuer : undefined;
    } catch (err) {
      this.log(`could not read the resource metadata again: ${this.describe(err, 'Discovery').message}`);
      return undefined;
    }
  }

  // ---- step-up -------------------------------------------------------------------------

  private async stepUp(bearer: BearerChallenge): Promise<'retry' | 'fail'> {
    const required = bearer.scopes ?? [];
    if (required.length === 0) {
      this.log('the server answered 403 insufficient_scope without naming a scope; giving up');
      return 'fail';
    }
    const held = (await this.storage.loadTokens())?.scopes ?? [];
    if (required.every((s) => held.includes(s))) {
      this.log(`the server still refuses although the token holds the scopes it named (${required.join(' ')}); giving up`);
      return 'fail';
    }
    const union = unique([...held, ...required]);
    const key = [...union].sort().join(' ');
    const attempts = this.stepUps.get(key) ?? 0;
    if (attempts >= MAX_STEP_UPS_PER_SCOPE_SET) {
      this.log(`already asked once for scopes ${union.join(' ')}; not asking again`);
      return 'fail';
    }
    this.stepUps.set(key, attempts + 1);
    if (this.signingIn) await this.signingIn;
    await this.signInShared({ scopes: union, challenge: bearer, reason: `the server needs more scopes (${required.join(' ')})` });
    return 'retry';
  }

  // ---- sign-in -------------------------------------------------------------------------

  private signInShared(request: SignInRequest): Promise<void> {
    if (!this.signingIn) {
      this.signingIn = this.signIn(request).finally(() => {
        this.signingIn = undefined;
      });
    }
    return this.signingIn;
  }

  private async signIn(request: SignInRequest): Promise<void> {
    const ctx = await this.locator.discover(request.challenge?.resourceMetadata);
    const base = request.scopes ?? request.challenge?.scopes ?? this.options.staticClient?.scopes ?? ctx.prmScopes ?? [];
    const scopes = withOfflineAccess(base, ctx.as);
    const interaction = this.options.interaction;
    if (!this.interactive || !interaction) {
      throw new AuthorizationRequiredError(
        `Server '${this.options.serverName}' needs you to sign in${scopes.length ? ` (scopes: ${scopes.join(' ')})` : ''}.`,
        this.options.resource,
        scopes,
      );
    }
    const now = Date.now();
    while (this.signInTimes.length && now - this.signInTimes[0] > SIGN_IN_WINDOW_MS) this.signInTimes.shift();
    if (!request.scopes && this.signInTimes.length >= MAX_SIGN_INS_PER_WINDOW) {
      throw new Error(`Server '${this.options.serverName}' keeps refusing fresh sign-ins; stopped asking. Check the server's authorization setup.`);
    }
    // Before anyone is asked: a configured client goes only to the AS it was first used with.
    await this.clients.checkStaticClientBinding(ctx);
    const confirmed = await interaction.confirmSignIn({
      serverName: this.options.serverName,
      resource: this.options.resource,
      authorizationServer: ctx.issuer,
      scopes,
    });
    if (!confirmed) {
      throw new AuthorizationRequiredError(`Sign-in to server '${this.options.serverName}' was cancelled.`, this.options.resource, scopes);
    }
    if (!request.scopes) this.signInTimes.push(now);
    this.log(`signing in at ${ctx.issuer} because ${request.reason}${scopes.length ? `; scopes: ${scopes.join(' ')}` : ''}`);

    // A dynamically registered client the AS no longer knows is registered again, once.
    for (let attempt = 0; ; attempt++) {
      let used: ResolvedClient | undefined;
      try {
        await runAuthorizationCodeFlow({
          ctx,
          scopes,
          interaction,
          clients: this.clients,
          storage: this.storage,
          fetchFn: this.fetchFn,
          callbackTimeoutMs: this.options.callbackTimeoutMs,
          loopbackPort: this.options.loopbackPort,
          onClient: (c) => (used = c),
          onAbortable: (abort) => (this.abortSignIn = abort),
        });
        this.log('signed in');
        return;
      } catch (err) {
        if (attempt === 0 && used?.kind === 'dynamic' && isStaleClientError(err)) {
          this.log(`the authorization server no longer accepts our registered client (${oauthErrorCode(err)}); registering again`);
          await this.storage.deleteClient(ctx);
          continue;
        }
        throw this.describe(err, 'Sign-in');
      }
    }
  }

  // ---- small helpers -------------------------------------------------------------------

  private sameOrigin(url: URL): boolean {
    return url.origin === this.resourceUrl.origin;
  }

  private expiresSoon(t: StoredTokens): boolean {
    if (t.expiresAt === undefined) return false;
    const margin = Math.min(this.options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS, (t.expiresAt - t.obtainedAt) / 2);
    return t.expiresAt - margin <= Date.now();
  }

  private log(line: string): void {
    this.options.log?.(`oauth '${this.options.serverName}': ${line}`);
  }

  private describe(err: unknown, what: string): Error {
    return describeOAuthError(err, what, this.options.serverName);
  }
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** SEP-2207: ask for offline_access (a refresh token) only where the AS lists it. */
function withOfflineAccess(scopes: readonly string[], as: AuthorizationServer): string[] {
  const out = unique(scopes);
  if (out.length > 0 && as.scopes_supported?.includes('offline_access') && !out.includes('offline_access')) out.push('offline_access');
  return out;
}
