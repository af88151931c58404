// Refreshing the access token with the refresh token, against the authorization server and with
// the client the tokens came from. One refresh is in flight at a time and concurrent callers share
// it; a refused refresh drops the tokens (and a registration the server no longer knows).

import { processRefreshTokenResponse, refreshTokenGrantRequest, ResponseBodyError } from 'oauth4webapi';
import type { AuthContext, AuthServerLocator } from './authServerContext';
import type { OAuthClients, ResolvedClient } from './clientRegistration';
import type { Fetch } from './discovery';
import { describeOAuthError, oauthHttpOptions } from './oauthHttp';
import type { OAuthStorage } from './oauthStorage';

export class TokenRefresher {
  private refreshing?: Promise<boolean>;

  constructor(
    private readonly storage: OAuthStorage,
    private readonly locator: AuthServerLocator,
    private readonly clients: OAuthClients,
    private readonly fetchFn: Fetch,
    private readonly serverName: string,
    private readonly log: (line: string) => void,
  ) {}

  /** The refresh in flight, if any (true when it succeeded). */
  get inFlight(): Promise<boolean> | undefined {
    return this.refreshing;
  }

  /** One refresh in flight per provider; concurrent callers share it. Never rejects. */
  refreshShared(reason: string): Promise<boolean> {
    if (!this.refreshing) {
      this.refreshing = this.refresh(reason).finally(() => {
        this.refreshing = undefined;
      });
    }
    return this.refreshing;
  }

  private async refresh(reason: string): Promise<boolean> {
    const tokens = await this.storage.loadTokens();
    const binding = await this.storage.loadBinding();
    if (!tokens?.refreshToken || !binding) return false;
    let ctx: AuthContext;
    let resolved: ResolvedClient | undefined;
    try {
      ctx = await this.locator.contextFor(binding);
      resolved = await this.clients.current(ctx);
    } catch (err) {
      this.log(`cannot refresh: ${describeOAuthError(err, 'Discovery', this.serverName).message}`);
      return false;
    }
    if (!resolved) {
      await this.storage.forgetTokens('the client the tokens belong to is gone');
      return false;
    }
    this.log(`refreshing the access token (${reason})`);
    try {
      const response = await refreshTokenGrantRequest(ctx.as, resolved.client, resolved.auth, tokens.refreshToken, {
        additionalParameters: { resource: ctx.resource },
        ...oauthHttpOptions(this.fetchFn, ctx.issuer),
      });
      const result = await processRefreshTokenResponse(ctx.as, resolved.client, response);
      await this.storage.saveTokens(ctx, result, tokens.scopes, tokens.refreshToken);
      this.log('access token refreshed');
      return true;
    } catch (err) {
      if (err instanceof ResponseBodyError) {
        this.log(`refresh refused (${err.error}); a new sign-in is needed`);
        await this.storage.forgetTokens('the refresh token was refused');
        if (resolved.kind === 'dynamic' && (err.error === 'invalid_client' || err.error === 'unauthorized_client')) {
          this.log('the authorization server no longer knows our registered client; it will be registered again');
          await this.storage.deleteClient(ctx);
        }
      } else {
        this.log(`refresh failed: ${describeOAuthError(err, 'Refresh', this.serverName).message}`);
      }
      return false;
    }
  }
}
