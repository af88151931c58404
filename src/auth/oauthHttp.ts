// How the OAuth flow talks HTTP through oauth4webapi: every answer it reads is bounded, http is
// allowed only for an authorization server on this computer, and its errors are retold without
// anything secret in them.

import { AuthorizationResponseError, ResponseBodyError, allowInsecureRequests, customFetch } from 'oauth4webapi';
import { isLoopbackHttp, type Fetch } from './discovery';
import { AuthorizationRequiredError } from './types';
import { errorMessage } from '../util/errorMessage';
import { METADATA_MAX_BYTES, boundedFetch } from '../transport/httpBody';
import { nodeHttpFetch } from '../transport/nodeHttp';

/**
 * The fetch for discovery and oauth4webapi: metadata, tokens and registrations are bounded (#18).
 * By default node:http, as the transports (nodeHttp.ts): the CLI's HTTP(S)_PROXY agents and
 * VS Code's proxy settings apply to sign-in too (the global fetch heeds neither).
 */
export function oauthFetch(base: typeof fetch | undefined): Fetch {
  return boundedFetch(base ?? nodeHttpFetch(), METADATA_MAX_BYTES);
}

/** The request options for one oauth4webapi call against the authorization server `issuer`. */
export function oauthHttpOptions(fetchFn: Fetch, issuer: string): { [customFetch]: Fetch; [allowInsecureRequests]: boolean; signal: AbortSignal } {
  return {
    [customFetch]: fetchFn,
    // http only for an AS on this computer; assertSecureEndpoint refused the rest earlier.
    [allowInsecureRequests]: isLoopbackHttp(new URL(issuer)),
    signal: AbortSignal.timeout(30_000),
  };
}

/** An error a person can act on, built only from non-secret parts of the original. */
export function describeOAuthError(err: unknown, what: string, serverName: string): Error {
  if (err instanceof AuthorizationRequiredError) return err;
  const server = `server '${serverName}'`;
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

export function oauthErrorCode(err: unknown): string {
  if (err instanceof ResponseBodyError || err instanceof AuthorizationResponseError) return err.error;
  return 'error';
}

/** The answers that mean "this client registration is no longer good". */
export function isStaleClientError(err: unknown): boolean {
  const code = err instanceof ResponseBodyError || err instanceof AuthorizationResponseError ? err.error : undefined;
  return code === 'invalid_client' || code === 'unauthorized_client' || code === 'invalid_grant';
}
