import type { ServerAuthorization, StaticClientConfig } from '../../auth/types';
import type { Implementation } from '../../protocol/schemas';
import type { ConfigSource, InputDefinition, ServerDefinition } from '../config';

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One line of the checklist: what was checked, what was found, and what to do when it failed. */
export interface DoctorCheck {
  readonly id: CheckId;
  readonly title: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix?: string;
}

export type CheckId = 'config' | 'trust' | 'variables' | 'command' | 'package' | 'cwd' | 'envFile' | 'dns' | 'tls' | 'auth' | 'handshake';

/** The doctor's answer for one server. Every text in it is redacted: it may be shown, logged or saved. */
export interface DoctorReport {
  readonly server: string;
  /** The configuration file the server came from. */
  readonly source: string;
  readonly transport: 'stdio' | 'http' | 'sse' | 'unknown';
  readonly checks: readonly DoctorCheck[];
  /** 'fail' when any check failed, 'warn' when any warned, else 'pass'. */
  readonly verdict: 'pass' | 'warn' | 'fail';
  /** One sentence: the first failure (or warning) and what to do, or that all is well. */
  readonly summary: string;
}

/** The server to diagnose, as the configuration gave it: a definition, or the problem that kept one from being read. */
export interface DoctorSubject {
  readonly name: string;
  readonly source: ConfigSource;
  readonly definition?: ServerDefinition;
  readonly problem?: { readonly message: string; readonly field?: string; readonly line?: number };
  /** Why the file is not applied as it is now (a JSON syntax error, or it cannot be read): the definition is that of its last valid save. */
  readonly unappliedFile?: { readonly message: string; readonly line?: number };
}

/**
 * What the doctor needs from where it runs. The CLI and the editor each implement it; nothing in
 * it prints a value: inputs and tokens are only asked whether they are held.
 */
export interface DoctorEnvironment {
  readonly processEnv: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** The folder a stdio server without "cwd" starts in (the CLI's working directory, the editor's workspace folder). */
  readonly defaultCwd?: string;
  /** The `inputs` declared beside the server. */
  readonly inputs: readonly InputDefinition[];
  /** The stored value of an input, without asking anyone; used only to start the dry handshake. */
  storedInput(input: InputDefinition): Promise<string | undefined>;
  /** What a person does about an input with no stored value here (the editor asks at start; the CLI cannot). */
  readonly missingInputHint: string;
  /** The authorization of a remote server (its token store); absent: tokens are not looked for. */
  authorization?(server: { name: string; url: string; staticClient?: StaticClientConfig }): ServerAuthorization;
  /** How a person signs in to a remote server here. */
  signInHint(serverName: string): string;
  readonly clientInfo: Implementation;
  /** How long the dry handshake (and each network check) may take. */
  readonly timeoutMs: number;
  /** The PATH a login shell has (memoise it: it is asked once per server). Absent: the real login shell is asked. */
  loginShellPath?(): Promise<string | undefined>;
  /** The newest version of an npm package, or undefined when the registry cannot be asked in time. Absent: `npm view`. */
  npmLatestVersion?(pkg: string): Promise<string | undefined>;
  /**
   * The handshake line of a session that runs now (the editor's running server), instead of a dry
   * handshake: a second copy of a running server may fight the first over its files or ports.
   */
  runningSession?(): DoctorCheck | undefined;
  /**
   * Why this server may not be started or contacted here (an untrusted workspace's server): then
   * only what reads the configuration and the disk is checked; nothing is run, fetched or sent.
   */
  readonly untrusted?: string;
  /** A clock in milliseconds (performance.now by default). */
  now?(): number;
}
