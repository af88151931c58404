// One authorization code flow with PKCE (RFC 7636) through the browser and the loopback redirect
// (RFC 8252): the client for the redirect URI, the authorization URL with state and resource
// (RFC 8707), the callback checked (state, `iss` per RFC 9207, error answers), the code exchanged
// for tokens, and the tokens stored.

import {
  authorizationCodeGrantRequest,
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomState,
  processAuthorizationCodeResponse,
  validateAuthResponse,
} from 'oauth4webapi';
import type { AuthContext } from './authServerContext';
import type { OAuthClients, ResolvedClient } from './clientRegistration';
import type { Fetch } from './discovery';
import { startLoopback } from './loopback';
import { oauthHttpOptions } from './oauthHttp';
import type { OAuthStorage } from './oauthStorage';
import type { AuthorizationInteraction } from './types';

const DEFAULT_CALLBACK_TIMEOUT_MS = 5 * 60_000;

export interface AuthorizationCodeFlow {
  readonly ctx: AuthContext;
  readonly scopes: readonly string[];
  readonly interaction: AuthorizationInteraction;
  readonly clients: OAuthClients;
  readonly storage: OAuthStorage;
  readonly fetchFn: Fetch;
  /** How long to wait for the browser to come back (default 5 minutes). */
  readonly callbackTimeoutMs?: number;
  /** Loopback port to use when no registered redirect URI names one. */
  readonly loopbackPort?: number;
  /** Told the client the flow uses, before the browser opens. */
  readonly onClient: (c: ResolvedClient) => void;
  /** Told how to close the loopback listener while the flow waits (undefined once it is over). */
  readonly onAbortable: (abort: (() => Promise<void>) | undefined) => void;
}

export async function runAuthorizationCodeFlow(flow: AuthorizationCodeFlow): Promise<void> {
  const { ctx, scopes, interaction } = flow;
  const stored = await flow.clients.loadStored(ctx);
  const preferredPort = portOf(stored?.redirectUri) ?? flow.loopbackPort;
  const loopback = await startLoopback({ preferredPort, timeoutMs: flow.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS });
  flow.onAbortable(() => loopback.close());
  try {
    const redirectUri = (await interaction.externalRedirectUri?.(loopback.redirectUri)) ?? loopback.redirectUri;
    const resolved = await flow.clients.resolve(ctx, redirectUri.href, stored, interaction);
    flow.onClient(resolved);

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
      ...oauthHttpOptions(flow.fetchFn, ctx.issuer),
    });
    const result = await processAuthorizationCodeResponse(ctx.as, resolved.client, response);
    await flow.storage.saveTokens(ctx, result, scopes, undefined);
  } finally {
    flow.onAbortable(undefined);
    await loopback.close();
  }
}

/** The port of a registered 127.0.0.1 redirect URI, to listen on the same one again. */
function portOf(uri: string | undefined): number | undefined {
  if (!uri) return undefined;
  try {
    const u = new URL(uri);
    return u.hostname === '127.0.0.1' && u.port ? Number(u.port) : undefined;
  } catch {
    return undefined;
  }
}
