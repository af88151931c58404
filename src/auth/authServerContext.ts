// Which authorization server signs in for one MCP URL, and its metadata: the MCP discovery order
// (protected resource metadata, then each authorization server it names), the 2025-03-26 fallback
// (the server's own origin, then default endpoint paths), and the checks every answer must pass
// (PKCE with S256, endpoints over https) before anything is sent to it.

import type { AuthorizationServer } from 'oauth4webapi';
import {
  assertSecureEndpoint,
  canonicalResource,
  discoverAuthorizationServer,
  discoverProtectedResource,
  ResourceMismatchError,
  type Fetch,
} from './discovery';
import { describeOAuthError } from './oauthHttp';
import type { Binding } from './oauthStorage';
import { displayUrl } from '../util/displayUrl';

/** What discovery found for this server. */
export interface AuthContext {
  readonly as: AuthorizationServer;
  readonly issuer: string;
  /** The RFC 8707 resource value: the PRM `resource`, else the canonical MCP URL. */
  readonly resource: string;
  readonly prmScopes?: readonly string[];
  readonly prmUrl?: string;
}

export class AuthServerLocator {
  private context?: AuthContext;

  constructor(
    private readonly resourceUrl: URL,
    private readonly fetchFn: Fetch,
    private readonly serverName: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether the server publishes protected-resource metadata (a metadata mismatch counts: sign-in then says why it stops). */
  async advertisesOAuth(): Promise<boolean> {
    try {
      return (await discoverProtectedResource(this.resourceUrl, undefined, this.fetchFn, this.log)) !== undefined;
    } catch (err) {
      return err instanceof ResourceMismatchError;
    }
  }

  /** Full discovery from a challenge; cached until another resource_metadata URL is named. */
  async discover(headerMetadataUrl: string | undefined, fresh = false): Promise<AuthContext> {
    if (!fresh && this.context && (!headerMetadataUrl || this.context.prmUrl === new URL(headerMetadataUrl, this.resourceUrl).href)) {
      return this.context;
    }
    try {
      const prm = await discoverProtectedResource(this.resourceUrl, headerMetadataUrl, this.fetchFn, this.log);
      if (prm) {
        for (const candidate of prm.authorizationServers) {
          const issuer = new URL(candidate);
          const as = await discoverAuthorizationServer(issuer, this.fetchFn, this.log);
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
      throw describeOAuthError(err, 'Discovery', this.serverName);
    }
  }

  /** Refresh after a restart needs only the AS metadata of the issuer the tokens came from. */
  async contextFor(binding: Binding): Promise<AuthContext> {
    if (this.context && this.context.issuer === binding.issuer && this.context.resource === binding.resource) return this.context;
    // Tokens from the 2025-03-26 fallback are bound to the server's own origin.
    if (binding.issuer === new URL(this.resourceUrl.origin).href) {
      this.context = this.checkedContext({ ...(await this.legacyContext()), resource: binding.resource });
      return this.context;
    }
    const as = await discoverAuthorizationServer(new URL(binding.issuer), this.fetchFn, this.log);
    const ctx: AuthContext = as ? { as, issuer: as.issuer, resource: binding.resource } : { ...(await this.legacyContext()), resource: binding.resource };
    if (ctx.issuer !== binding.issuer) throw new Error(`the authorization server ${binding.issuer} could not be reached`);
    this.context = this.checkedContext(ctx);
    return this.context;
  }

  private async legacyContext(): Promise<AuthContext> {
    const origin = new URL(this.resourceUrl.origin);
    const as = await discoverAuthorizationServer(origin, this.fetchFn, this.log, true);
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
}
