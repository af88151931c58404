// OAuth for one remote MCP server, as the MCP authorization spec (2025-11-25) describes:
// 401 → resource metadata → AS metadata → a client → authorization code + PKCE → tokens,
// refresh, step-up on insufficient_scope. oauth4webapi does the OAuth mechanics; the MCP
// discovery orders, client choice and the flow around them are here. Nothing secret is
// ever put in a log line or an error message.

import {
  allowInsecureRequests,
  authorizationCodeGrantRequest,
  AuthorizationResponseError,
  calculatePKCECodeChallenge,
  ClientSecretPost,
  customFetch,
  dynamicClientRegistrationRequest,
  generateRandomCodeVerifier,
  generateRandomState,
  None,
  processAuthorizationCodeResponse,
  processRefreshTokenResponse,
  refreshTokenGrantRequest,
  ResponseBodyError,
  validateAuthResponse,
  type AuthorizationServer,
  type Client,
  type ClientAuth,
  type TokenEndpointResponse,
} from 'oauth4webapi';
import { parseBearerChallenge, splitScopes, type BearerChallenge } from './challenge';
import {
  assertSecureEndpoint,
  canonicalResource,
  discoverAuthorizationServer,
  discoverProtectedResource,
  isLoopbackHttp,
  ResourceMismatchError,
  type Fetch,
} from './discovery';
import { startLoopback } from './loopback';
import {
  AuthorizationRequiredError,
  type AuthChallenge,
  type AuthorizationInteraction,
  type HttpAuthProvider,
  type SecretStore,
  type StaticClientConfig,
} from './types';
import { errorMessage } from '../util/errorMessage';
import { METADATA_MAX_BYTES, boundedFetch } from '../transport/httpBody';
import { displayUrl } from '../util/displayUrl';

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

/** A client as the flow uses it. `kind` decides what may be re-registered and what is stored. */
interface ResolvedClient {
  readonly kind: 'static' | 'cimd' | 'dynamic' | 'manual';
  readonly client: Client;
  readonly auth: ClientAuth;
}

interface StoredClient {
  kind: 'dynamic' | 'manual';
  clientId: string;
  clientSecret?: string;
  authMethod?: string;
  redirectUri?: string;
}

interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** ms since epoch */
  expiresAt?: number;
  obtainedAt: number;
  scopes: string[];
}

/** Where this MCP URL's tokens live: its authorization server and RFC 8707 resource. */
interface Binding {
  issuer: string;
  resource: string;
}

/** The authorization server a configured (static) client was first used with. */
interface StaticClientBinding {
  issuer: string;
}

/** What discovery found for this server. */
interface AuthContext {
  readonly as: AuthorizationServer;
  readonly issuer: string;
  /** The RFC 8707 resource value: the PRM `resource`, else the canonical MCP URL. */
  readonly resource: string;
  readonly prmScopes?: readonly string[];
  readonly prmUrl?: string;
}

interface SignInRequest {
  /** Step-up: the scope union to ask for (bounded per scope set, not by the 401 window). */
  readonly scopes?: readonly string[];
  readonly challenge?: BearerChallenge;
  readonly reason: string;
}

const KEY_PREFIX = 'mcp-host.oauth.v1';
const DEFAULT_CALLBACK_TIMEOUT_MS = 5 * 60_000;
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
  private interactive: boolean;
  private context?: AuthContext;
  private binding?: Binding | null;
  private tokens?: StoredTokens | null;
  private refreshing?: Promise<boolean>;
  private signingIn?: Promise<void>;
  private readonly signInTimes: number[] = [];
  private readonly stepUps = new Map<string, number>();
  /** Closes the loopback listener of a sign-in in progress. */
  private abortSignIn?: () => Promise<void>;

  constructor(private readonly options: OAuthProviderOptions) {
    this.resourceUrl = new URL(options.resource);
    // Every answer oauth4webapi and discovery read (metadata, tokens, registration) is bounded (#18).
    this.fetchFn = boundedFetch(options.fetch ?? ((input, init) => fetch(input, init)), METADATA_MAX_BYTES);
    this.interactive = options.interactive ?? false;
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
    return (await this.loadTokens()) !== undefined;
  }

  /** Forgets this server's tokens (and so any silent sign-in). Client registrations stay. */
  async signOut(): Promise<void> {
    const binding = await this.loadBinding();
    if (binding) await this.options.store.delete(this.tokensKey(binding));
    await this.options.store.delete(this.bindingKey());
    // A configured client is bound again to the next authorization server it is used with.
    if (this.options.staticClient) await this.options.store.delete(this.staticClientKey(this.options.staticClient.clientId));
    this.tokens = null;
    this.binding = null;
    this.stepUps.clear();
    this.signInTimes.length = 0;
    this.log('signed out; tokens forgotten');
  }

  async authorizationHeader(resource: URL): Promise<string | undefined> {
    // A token goes only to the origin it was issued for.
    if (!this.sameOrigin(resource)) return undefined;
    let tokens = await this.loadTokens();
    if (!tokens) return undefined;
    if (tokens.refreshToken && this.expiresSoon(tokens)) {
      await this.refreshShared('the access token is about to expire');
      tokens = await this.loadTokens();
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
      return (await this.loadTokens()) ? 'retry' : 'fail';
    }
    if (this.refreshing && (await this.refreshing)) return 'retry';

    const tokens = await this.loadTokens();
    if (tokens) {
      const current = `Bearer ${tokens.accessToken}`;
      // Another request replaced the token since this one was sent: try the new one.
      if (challenge.authorization !== undefined && challenge.authorization !== current) return 'retry';
      if (challenge.authorization === undefined && Date.now() - tokens.obtainedAt < FRESH_TOKEN_MS) return 'retry';
      // Our current token was refused. The server may have moved to another authorization
      // server (client-registration.mdx, "Authorization Server Binding"): its metadata says.
      const moved = await this.authorizationServerMoved(bearer.resourceMetadata);
      if (moved) {
        await this.forgetTokens(`the server now names the authorization server ${moved}`);
      } else {
        if (tokens.refreshToken && (await this.refreshShared('the server refused the access token'))) return 'retry';
        await this.forgetTokens('the server refused the access token and it could not be refreshed');
      }
    }
    await this.signInShared({ challenge: bearer, reason: 'the server asks for authorization' });
    return (await this.loadTokens()) ? 'retry' : 'fail';
  }

  /** Whether the server publishes protected-resource metadata (a metadata mismatch counts: sign-in then says why it stops). */
  async advertisesOAuth(resource: URL): Promise<boolean> {
    if (!this.sameOrigin(resource)) return false;
    try {
      return (await discoverProtectedResource(this.resourceUrl, undefined, this.fetchFn, (l) => this.log(l))) !== undefined;
    } catch (err) {
      return err instanceof ResourceMismatchError;
    }
  }

  /**
   * Reads the protected resource metadata again; the new issuer when it differs from the one our
   * tokens came from (the sign-in that follows then uses it, with a client of its own), else
   * undefined. A failed read changes nothing.
   */
  private async authorizationServerMoved(headerMetadataUrl: string | undefined): Promise<string | undefined> {
    const binding = await this.loadBinding();
    if (!binding) return undefined;
    try {
      const ctx = await this.discover(headerMetadataUrl, true);
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
    const held = (await this.loadTokens())?.scopes ?? [];
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
    const ctx = await this.discover(request.challenge?.resourceMetadata);
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
    await this.checkStaticClientBinding(ctx);
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
        await this.authorize(ctx, scopes, interaction, (c) => (used = c));
        this.log('signed in');
        return;
      } catch (err) {
        if (attempt === 0 && used?.kind === 'dynamic' && isStaleClientError(err)) {
          this.log(`the authorization server no longer accepts our registered client (${oauthErrorCode(err)}); registering again`);
          await this.options.store.delete(this.clientKey(ctx));
          continue;
        }
        throw this.describe(err, 'Sign-in');
      }
    }
  }

  /** One authorization code flow through the browser and the loopback redirect. */
  private async authorize(
    ctx: AuthContext,
    scopes: readonly string[],
    interaction: AuthorizationInteraction,
    onClient: (c: ResolvedClient) => void,
  ): Promise<void> {
    const stored = await this.loadStoredClient(ctx);
    const preferredPort = portOf(stored?.redirectUri) ?? this.options.loopbackPort;
    const loopback = await startLoopback({ preferredPort, timeoutMs: this.options.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS });
    this.abortSignIn = () => loopback.close();
    try {
      const redirectUri = (await interaction.externalRedirectUri?.(loopback.redirectUri)) ?? loopback.redirectUri;
      const resolved = await this.resolveClient(ctx, redirectUri.href, stored, interaction);
      onClient(resolved);

      const verifier = generateRandomCodeVerifier();
      const state = generateRandomState();
      const url = new URL(ctx.as.authorization_endpoint!);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', resolved.client.client_id);
      url.searchParams.set('redirect_uri', redirectUri.href);
      url.searchParams.set('code_challenge', await calculatePKCECodeChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('state', state);
      url.searchParams.set('resource', ctx.resource);
      if (scopes.length) url.searchParams.set('scope', scopes.join(' '));
      // OpenID providers issue refresh tokens for offline_access only after consent.
      if (scopes.includes('offline_access')) url.searchParams.set('prompt', 'consent');

      // Listen before the browser opens, so a fast answer is not missed.
      const [params] = await Promise.all([loopback.waitForCallback(state), interaction.openBrowser(url)]);
      // Checks state (again), `iss` where the AS supports it (RFC 9207), and error answers.
      const callback = validateAuthResponse(ctx.as, resolved.client, params, state);
      const response = await authorizationCodeGrantRequest(ctx.as, resolved.client, resolved.auth, callback, redirectUri.href, verifier, {
        additionalParameters: { resource: ctx.resource },
        ...this.httpOptions(ctx),
      });
      const result = await processAuthorizationCodeResponse(ctx.as, resolved.client, response);
      await this.saveTokens(ctx, result, scopes, undefined);
    } finally {
      this.abortSignIn = undefined;
      await loopback.close();
    }
  }

  // ---- clients -------------------------------------------------------------------------

  /** Static first, then CIMD, then a stored or new dynamic registration, then a person. */
  private async resolveClient(
    ctx: AuthContext,
    redirectUri: string,
    stored: StoredClient | undefined,
    interaction: AuthorizationInteraction,
  ): Promise<ResolvedClient> {
    await this.checkStaticClientBinding(ctx);
    const fixed = this.fixedClient(ctx);
    if (fixed) return fixed;

    if (stored?.kind === 'dynamic' && stored.redirectUri !== redirectUri) {
      this.log('the redirect port changed since the client was registered; registering again');
      stored = undefined;
    }
    if (stored) return this.fromStored(ctx, stored);

    if (ctx.as.registration_endpoint) {
      assertSecureEndpoint(new URL(ctx.as.registration_endpoint), 'registration endpoint');
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
        this.httpOptions(ctx),
      );
      const registered = await readRegistration(response);
      const record: StoredClient = {
        kind: 'dynamic',
        clientId: registered.client_id,
        clientSecret: typeof registered.client_secret === 'string' ? registered.client_secret : undefined,
        authMethod: typeof registered.token_endpoint_auth_method === 'string' ? registered.token_endpoint_auth_method : undefined,
        redirectUri,
      };
      await this.options.store.store(this.clientKey(ctx), JSON.stringify(record));
      this.log(`registered a client with ${ctx.issuer} (dynamic client registration)`);
      return this.fromStored(ctx, record);
    }

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
    await this.options.store.store(this.clientKey(ctx), JSON.stringify(record));
    return this.fromStored(ctx, record);
  }

  /**
   * A configured client (id and secret in the configuration) belongs to one authorization server;
   * the configuration does not name it, so it is the first one the client is used with, stored
   * here. Discovery naming another one later (the server, or whoever answers for it, says so) is
   * refused: the secret is not sent there. Signing out forgets the binding.
   */
  private async checkStaticClientBinding(ctx: AuthContext): Promise<void> {
    const s = this.options.staticClient;
    if (!s) return;
    const key = this.staticClientKey(s.clientId);
    const bound = await this.readJson(key, 'configured client binding', isStaticClientBinding);
    if (!bound) {
      await this.options.store.store(key, JSON.stringify({ issuer: ctx.issuer } satisfies StaticClientBinding));
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

  private fromStored(ctx: AuthContext, stored: StoredClient): ResolvedClient {
    const method = chooseAuthMethod(ctx.as, stored.clientSecret, stored.authMethod);
    return {
      kind: stored.kind,
      client: { client_id: stored.clientId, token_endpoint_auth_method: method },
      auth: clientAuth(method, stored.clientSecret),
    };
  }

  /** The client to refresh with: the one the tokens were obtained with. */
  private async currentClient(ctx: AuthContext): Promise<ResolvedClient | undefined> {
    await this.checkStaticClientBinding(ctx);
    const fixed = this.fixedClient(ctx);
    if (fixed) return fixed;
    const stored = await this.loadStoredClient(ctx);
    return stored ? this.fromStored(ctx, stored) : undefined;
  }

  // ---- refresh -------------------------------------------------------------------------

  /** One refresh in flight per provider; concurrent callers share it. Never rejects. */
  private refreshShared(reason: string): Promise<boolean> {
    if (!this.refreshing) {
      this.refreshing = this.refresh(reason).finally(() => {
        this.refreshing = undefined;
      });
    }
    return this.refreshing;
  }

  private async refresh(reason: string): Promise<boolean> {
    const tokens = await this.loadTokens();
    const binding = await this.loadBinding();
    if (!tokens?.refreshToken || !binding) return false;
    let ctx: AuthContext;
    let resolved: ResolvedClient | undefined;
    try {
      ctx = await this.contextFor(binding);
      resolved = await this.currentClient(ctx);
    } catch (err) {
      this.log(`cannot refresh: ${this.describe(err, 'Discovery').message}`);
      return false;
    }
    if (!resolved) {
      await this.forgetTokens('the client the tokens belong to is gone');
      return false;
    }
    this.log(`refreshing the access token (${reason})`);
    try {
      const response = await refreshTokenGrantRequest(ctx.as, resolved.client, resolved.auth, tokens.refreshToken, {
        additionalParameters: { resource: ctx.resource },
        ...this.httpOptions(ctx),
      });
      const result = await processRefreshTokenResponse(ctx.as, resolved.client, response);
      await this.saveTokens(ctx, result, tokens.scopes, tokens.refreshToken);
      this.log('access token refreshed');
      return true;
    } catch (err) {
      if (err instanceof ResponseBodyError) {
        this.log(`refresh refused (${err.error}); a new sign-in is needed`);
        await this.forgetTokens('the refresh token was refused');
        if (resolved.kind === 'dynamic' && (err.error === 'invalid_client' || err.error === 'unauthorized_client')) {
          this.log('the authorization server no longer knows our registered client; it will be registered again');
          await this.options.store.delete(this.clientKey(ctx));
        }
      } else {
        this.log(`refresh failed: ${this.describe(err, 'Refresh').message}`);
      }
      return false;
    }
  }

  // ---- discovery -----------------------------------------------------------------------

  /** Full discovery from a challenge; cached until another resource_metadata URL is named. */
  private async discover(headerMetadataUrl: string | undefined, fresh = false): Promise<AuthContext> {
    if (!fresh && this.context && (!headerMetadataUrl || this.context.prmUrl === new URL(headerMetadataUrl, this.resourceUrl).href)) {
      return this.context;
    }
    try {
      const prm = await discoverProtectedResource(this.resourceUrl, headerMetadataUrl, this.fetchFn, (l) => this.log(l));
      if (prm) {
        for (const candidate of prm.authorizationServers) {
          const issuer = new URL(candidate);
          const as = await discoverAuthorizationServer(issuer, this.fetchFn, (l) => this.log(l));
          if (!as) continue;
          const known = this.context?.issuer === as.issuer;
          this.context = this.checkedContext({ as, issuer: as.issuer, resource: prm.resource, prmScopes: prm.scopesSupported, prmUrl: prm.metadataUrl });
          if (!known) this.log(`authorization server ${as.issuer} (from ${displayUrl(prm.metadataUrl)})`);
          return this.context;
        }
        throw new Error(`none of the authorization servers named by ${displayUrl(prm.metadataUrl)} publishes its metadata`);
      }
      // No resource metadata: a 2025-03-26 era server, whose own origin is the AS.
      this.log('no protected resource metadata; trying the server origin as authorization server (2025-03-26 behaviour)');
      this.context = this.checkedContext(await this.legacyContext());
      return this.context;
    } catch (err) {
      throw this.describe(err, 'Discovery');
    }
  }

  /** Refresh after a restart needs only the AS metadata of the issuer the tokens came from. */
  private async contextFor(binding: Binding): Promise<AuthContext> {
    if (this.context && this.context.issuer === binding.issuer && this.context.resource === binding.resource) return this.context;
    // Tokens from the 2025-03-26 fallback are bound to the server's own origin.
    if (binding.issuer === new URL(this.resourceUrl.origin).href) {
      this.context = this.checkedContext({ ...(await this.legacyContext()), resource: binding.resource });
      return this.context;
    }
    const as = await discoverAuthorizationServer(new URL(binding.issuer), this.fetchFn, (l) => this.log(l));
    const ctx: AuthContext = as ? { as, issuer: as.issuer, resource: binding.resource } : { ...(await this.legacyContext()), resource: binding.resource };
    if (ctx.issuer !== binding.issuer) throw new Error(`the authorization server ${binding.issuer} could not be reached`);
    this.context = this.checkedContext(ctx);
    return this.context;
  }

  private async legacyContext(): Promise<AuthContext> {
    const origin = new URL(this.resourceUrl.origin);
    const as = await discoverAuthorizationServer(origin, this.fetchFn, (l) => this.log(l), true);
    // The document's `issuer` is unchecked here (2025-03-26 servers often name another one): we
    // name, key and prompt with the origin we actually talk to, never with what it claims.
    if (as) return { as, issuer: origin.href, resource: canonicalResource(this.resourceUrl) };
    // 2025-03-26 "fallbacks for servers without metadata discovery": default endpoint paths.
    this.log('no authorization server metadata either; using the default /authorize, /token and /register');
    const fallback: AuthorizationServer = {
      issuer: origin.href,
      authorization_endpoint: new URL('/authorize', origin).href,
      token_endpoint: new URL('/token', origin).href,
      registration_endpoint: new URL('/register', origin).href,
      code_challenge_methods_supported: ['S256'],
    };
    return { as: fallback, issuer: fallback.issuer, resource: canonicalResource(this.resourceUrl) };
  }

  private checkedContext(ctx: AuthContext): AuthContext {
    // The spec: no S256 in the metadata means no PKCE, and then we must not proceed.
    if (!ctx.as.code_challenge_methods_supported?.includes('S256')) {
      throw new Error(`the authorization server ${ctx.issuer} does not announce PKCE with S256 (code_challenge_methods_supported); not signing in`);
    }
    if (!ctx.as.authorization_endpoint || !ctx.as.token_endpoint) {
      throw new Error(`the authorization server ${ctx.issuer} publishes no authorization or token endpoint`);
    }
    assertSecureEndpoint(new URL(ctx.as.authorization_endpoint), 'authorization endpoint');
    assertSecureEndpoint(new URL(ctx.as.token_endpoint), 'token endpoint');
    return ctx;
  }

  // ---- storage -------------------------------------------------------------------------

  private bindingKey(): string {
    return `${KEY_PREFIX}/binding/${canonicalResource(this.resourceUrl)}`;
  }
  private tokensKey(b: Binding): string {
    return `${KEY_PREFIX}/tokens/${b.issuer} ${b.resource}`;
  }
  private staticClientKey(clientId: string): string {
    return `${KEY_PREFIX}/static-client/${canonicalResource(this.resourceUrl)} ${clientId}`;
  }
  private clientKey(ctx: { issuer: string; resource: string }): string {
    return `${KEY_PREFIX}/client/${ctx.issuer} ${ctx.resource}`;
  }

  private async loadBinding(): Promise<Binding | undefined> {
    if (this.binding === undefined) {
      this.binding = (await this.readJson(this.bindingKey(), 'sign-in record', isBinding)) ?? null;
    }
    return this.binding ?? undefined;
  }

  private async loadTokens(): Promise<StoredTokens | undefined> {
    if (this.tokens === undefined) {
      const binding = await this.loadBinding();
      this.tokens = (binding && (await this.readJson(this.tokensKey(binding), 'tokens', isStoredTokens))) || null;
    }
    return this.tokens ?? undefined;
  }

  private async loadStoredClient(ctx: AuthContext): Promise<StoredClient | undefined> {
    if (this.options.staticClient) return undefined;
    return this.readJson(this.clientKey(ctx), 'client registration', isStoredClient);
  }

  private async saveTokens(ctx: AuthContext, result: TokenEndpointResponse, requested: readonly string[], previousRefresh: string | undefined): Promise<void> {
    const now = Date.now();
    const tokens: StoredTokens = {
      accessToken: result.access_token,
      refreshToken: result.refresh_token ?? previousRefresh,
      expiresAt: typeof result.expires_in === 'number' ? now + result.expires_in * 1000 : undefined,
      obtainedAt: now,
      scopes: result.scope !== undefined ? splitScopes(result.scope) : [...requested],
    };
    const binding: Binding = { issuer: ctx.issuer, resource: ctx.resource };
    await this.options.store.store(this.tokensKey(binding), JSON.stringify(tokens));
    await this.options.store.store(this.bindingKey(), JSON.stringify(binding));
    this.binding = binding;
    this.tokens = tokens;
  }

  private async forgetTokens(reason: string): Promise<void> {
    const binding = await this.loadBinding();
    if (binding) await this.options.store.delete(this.tokensKey(binding));
    this.tokens = null;
    this.log(`tokens dropped: ${reason}`);
  }

  /** A stored value that does not parse or has the wrong shape is dropped with a log line. */
  private async readJson<T>(key: string, what: string, valid: (v: unknown) => v is T): Promise<T | undefined> {
    const text = await this.options.store.get(key);
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (valid(value)) return value;
    } catch {
      // fall through
    }
    this.log(`the stored ${what} is damaged and was ignored`);
    await this.options.store.delete(key);
    return undefined;
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

  private httpOptions(ctx: AuthContext): { [customFetch]: Fetch; [allowInsecureRequests]: boolean; signal: AbortSignal } {
    return {
      [customFetch]: this.fetchFn,
      // http only for an AS on this computer; assertSecureEndpoint refused the rest earlier.
      [allowInsecureRequests]: isLoopbackHttp(new URL(ctx.issuer)),
      signal: AbortSignal.timeout(30_000),
    };
  }

  private log(line: string): void {
    this.options.log?.(`oauth '${this.options.serverName}': ${line}`);
  }

  /** An error a person can act on, built only from non-secret parts of the original. */
  private describe(err: unknown, what: string): Error {
    if (err instanceof AuthorizationRequiredError) return err;
    const server = `server '${this.options.serverName}'`;
    if (err instanceof ResponseBodyError) {
      return new Error(`${what} for ${server} failed: the authorization server answered ${err.error}${err.error_description ? ` (${err.error_description})` : ''}.`);
    }
    if (err instanceof AuthorizationResponseError) {
      return new Error(`${what} for ${server} failed: the authorization server answered ${err.error}${err.error_description ? ` (${err.error_description})` : ''}.`);
    }
    const message = errorMessage(err);
    if (message.startsWith(`${what} for `)) return err as Error;
    return new Error(`${what} for ${server} failed: ${message}`);
  }
}

// ---- pure helpers --------------------------------------------------------------------------

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** SEP-2207: ask for offline_access (a refresh token) only where the AS lists it. */
function withOfflineAccess(scopes: readonly string[], as: AuthorizationServer): string[] {
  const out = unique(scopes);
  if (out.length > 0 && as.scopes_supported?.includes('offline_access') && !out.includes('offline_access')) out.push('offline_access');
  return out;
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
    body = await response.json(); // bounded: fetchFn reads at most METADATA_MAX_BYTES
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

function oauthErrorCode(err: unknown): string {
  if (err instanceof ResponseBodyError || err instanceof AuthorizationResponseError) return err.error;
  return 'error';
}

/** The answers that mean "this client registration is no longer good". */
function isStaleClientError(err: unknown): boolean {
  const code = err instanceof ResponseBodyError || err instanceof AuthorizationResponseError ? err.error : undefined;
  return code === 'invalid_client' || code === 'unauthorized_client' || code === 'invalid_grant';
}

/** OpenID Connect Dynamic Client Registration's application_type for a redirect URI. */
export function applicationTypeFor(redirectUri: string): 'native' | 'web' {
  try {
    return isLoopbackHttp(new URL(redirectUri)) ? 'native' : 'web';
  } catch {
    return 'web';
  }
}

function portOf(uri: string | undefined): number | undefined {
  if (!uri) return undefined;
  try {
    const u = new URL(uri);
    return u.hostname === '127.0.0.1' && u.port ? Number(u.port) : undefined;
  } catch {
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
