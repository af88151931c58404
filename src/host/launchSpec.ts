// What a transport is built from (transportFactory.ts); here so that redact.ts, which reads a
// launch's secrets, need not import the factory, which imports it.

/** A server definition with every variable resolved: what a transport is built from. */
export type LaunchSpec = StdioLaunchSpec | HttpLaunchSpec;

export interface StdioLaunchSpec {
  readonly type: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | null>>;
  readonly cwd?: string;
}

export interface HttpLaunchSpec {
  readonly type: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** How the address is shown (util/displayUrl.ts): the config's url as written, never its variables' values. */
  readonly shownUrl?: string;
}
