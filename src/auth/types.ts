// The contract between the HTTP transports and authorization. Authorization wraps the
// transports' requests; it is not a transport of its own. No `vscode` import here.

/** A small key-value store for secrets: VS Code's SecretStorage, an owner-only file, or memory. */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** What an HTTP transport asks of authorization for every request it makes. */
export interface HttpAuthProvider {
  /**
   * The Authorization header for a request to `resource` (the MCP endpoint), or undefined
   * when no token is held. Refreshes a token that is about to expire first.
   */
  authorizationHeader(resource: URL): Promise<string | undefined>;
  /**
   * A request to `resource` was answered 401 or 403. Resolves 'retry' when a new token is now
   * held (refreshed, or obtained by signing in) and the request should be sent again, 'fail'
   * when nothing more can be done (the transport then reports the HTTP status). Rejects with
   * AuthorizationRequiredError when a person must sign in and may not be asked now.
   * The transport retries a request at most a few times, so a server that always answers 401
   * cannot loop.
   */
  handleChallenge(challenge: AuthChallenge, resource: URL): Promise<'retry' | 'fail'>;
  /**
   * Whether `resource` publishes OAuth protected-resource metadata, asked when a configured
   * Authorization header was refused (401) without a challenge naming it: only then is signing
   * in offered. Absent: assumed true.
   */
  advertisesOAuth?(resource: URL): Promise<boolean>;
}

export interface AuthChallenge {
  readonly status: number;
  /** The raw WWW-Authenticate header(s), if any. */
  readonly wwwAuthenticate: string | null;
  /**
   * The Authorization header the refused request carried (kept in memory, never logged): tells
   * a token that was just replaced by another request from the one that was refused.
   */
  readonly authorization?: string;
}

/** The authorization of one server, as the host uses it (OAuthProvider implements it). */
export interface ServerAuthorization extends HttpAuthProvider {
  /** While false (the default), a challenge that needs a person fails with AuthorizationRequiredError. */
  setInteractive(allowed: boolean): void;
  /** Forgets this server's tokens. */
  signOut(): Promise<void>;
  hasToken(): Promise<boolean>;
}

/** Marks the class across bundle copies (the remote bundle has its own): see Symbol.hasInstance below. */
const AUTHORIZATION_REQUIRED = Symbol.for('mcp-host.AuthorizationRequiredError');

/** Raised when a server needs a sign-in that was not allowed to start by itself. */
export class AuthorizationRequiredError extends Error {
  /** `instanceof` that holds for an instance made by the remote bundle's copy of this class too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[AUTHORIZATION_REQUIRED] === true;
  }

  get [AUTHORIZATION_REQUIRED](): boolean {
    return true;
  }

  constructor(
    message: string,
    readonly resource: string,
    readonly scopes: readonly string[] = [],
  ) {
    super(message);
    this.name = 'AuthorizationRequiredError';
  }
}

/** How the flow talks to a person: the editor implements it with VS Code, the CLI with a terminal. */
export interface AuthorizationInteraction {
  /** Asks whether to sign in; false cancels. `serverName` is the configured name. */
  confirmSignIn(request: { serverName: string; resource: string; authorizationServer: string; scopes: readonly string[] }): Promise<boolean>;
  /** Opens the authorization URL in a browser (or prints it). */
  openBrowser(url: URL): Promise<void>;
  /**
   * Maps the local loopback redirect URI to one the browser can reach (VS Code's asExternalUri
   * when VS Code runs in a browser); identity when omitted.
   */
  externalRedirectUri?(local: URL): Promise<URL>;
  /** Asks for a pre-registered client when the server offers no registration; undefined cancels. */
  askClientId?(request: { serverName: string; authorizationServer: string; redirectUri: string }): Promise<{ clientId: string; clientSecret?: string } | undefined>;
}

/** A pre-registered client from the configuration (`oauth` in mcp.json). */
export interface StaticClientConfig {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scopes?: readonly string[];
}
