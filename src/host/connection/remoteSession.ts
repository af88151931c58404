import type { AuthorizationRequiredError, ServerAuthorization, StaticClientConfig } from '../../auth/types';
import type { Logger } from '../../util/logger';
import type { HttpServerDefinition, ServerDefinition } from '../config';
import type { ConnectionEnvironment } from './environment';
import type { PreparedSpec } from './launch';

/**
 * The sign-in side of a remote server: its authorization, kept across launches (its refresh and
 * sign-in state), and whether the next launch may ask the person to sign in.
 */
export class RemoteSession {
  private authorizationValue: { key: string; auth: ServerAuthorization } | undefined;
  /** Set by a sign-in: the next launch may ask the person to sign in. */
  private signInRequested = false;

  constructor(
    private readonly serverName: string,
    private readonly env: ConnectionEnvironment,
    private readonly log: Logger,
  ) {}

  /** Whether a sign-in could help: the server is remote and authorization is available. */
  canSignIn(definition: ServerDefinition | undefined): boolean {
    return definition !== undefined && definition.type !== 'stdio' && this.env.authorization !== undefined;
  }

  /** The next launch may ask the person to sign in. */
  requestSignIn(): void {
    this.signInRequested = true;
  }

  /**
   * The authorization a launch uses (none for a local server), interactive when a sign-in was
   * asked for; that request is used up by this launch either way.
   */
  forLaunch(definition: ServerDefinition, spec: PreparedSpec): ServerAuthorization | undefined {
    const auth = spec.type === 'stdio' || definition.type === 'stdio' ? undefined : this.authorizationFor(definition, spec.clientSecret);
    const interactive = this.signInRequested;
    this.signInRequested = false;
    auth?.setInteractive(interactive);
    return auth;
  }

  /** The authorization whose tokens a sign-out forgets: the one in use, else the definition's. */
  forSignOut(definition: HttpServerDefinition): ServerAuthorization | undefined {
    return this.authorizationValue?.auth ?? this.authorizationFor(definition);
  }

  /** The authorization of a remote server; a new one when its address or client changed. */
  private authorizationFor(def: HttpServerDefinition, clientSecret?: string): ServerAuthorization | undefined {
    if (!this.env.authorization) return undefined;
    const key = JSON.stringify([def.url, def.oauth?.clientId, def.oauth?.scopes, clientSecret !== undefined]);
    if (this.authorizationValue?.key !== key) {
      const staticClient: StaticClientConfig | undefined = def.oauth ? { clientId: def.oauth.clientId, clientSecret, scopes: def.oauth.scopes } : undefined;
      this.authorizationValue = { key, auth: this.env.authorization({ name: this.serverName, url: def.url, staticClient, log: this.log }) };
    }
    return this.authorizationValue.auth;
  }
}

/** What the tree and log say of a server that wants a sign-in. */
export function needsSignInMessage(serverName: string, err: AuthorizationRequiredError): string {
  const scopes = err.scopes.length > 0 ? ` (scopes: ${err.scopes.join(' ')})` : '';
  return `Server "${serverName}" needs you to sign in${scopes}. Use Sign In.`;
}
