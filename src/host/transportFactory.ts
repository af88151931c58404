import type { HttpAuthProvider } from '../auth/types';
import { loadRemote } from './loadRemote';
import { Redactor, tokenArgumentValues } from './redact';
import type { HttpLaunchSpec, LaunchSpec, StdioLaunchSpec } from './launchSpec';
import { StdioTransport } from '../transport/stdio';
import type { Transport } from '../transport/transport';
import { displayUrl } from '../util/displayUrl';

export type { LaunchSpec, StdioLaunchSpec, HttpLaunchSpec };

/** What every transport may need besides its spec. */
export interface TransportContext {
  /** The server's name, for errors and logs. */
  readonly label: string;
  readonly maxMessageBytes?: number;
  /** How a person raises maxMessageBytes (e.g. the setting), for the oversize warning. */
  readonly maxMessageBytesHint?: string;
  readonly shutdown?: { closeStdinGraceMs?: number; sigtermGraceMs?: number };
  /** Authorization of HTTP requests (OAuth); stdio ignores it. */
  readonly auth?: HttpAuthProvider;
  readonly fetch?: typeof globalThis.fetch;
}

type Builder<S extends LaunchSpec> = (spec: S, context: TransportContext) => Transport;

/** One line per transport kind: adding a transport is a file plus a line here. */
const builders: { [K in LaunchSpec['type']]: Builder<Extract<LaunchSpec, { type: K }>> } = {
  stdio: (spec, context) =>
    new StdioTransport({
      command: spec.command,
      args: [...spec.args],
      env: { ...spec.env },
      cwd: spec.cwd,
      label: context.label,
      maxMessageBytes: context.maxMessageBytes,
      maxMessageBytesHint: context.maxMessageBytesHint,
      shutdown: context.shutdown,
    }),
  http: (spec, context) => loadRemote().createHttpTransport('http', httpOptions(spec, context)),
  sse: (spec, context) => loadRemote().createHttpTransport('sse', httpOptions(spec, context)),
};

function httpOptions(spec: HttpLaunchSpec, context: TransportContext) {
  return { url: spec.url, shownUrl: shownUrlOf(spec), headers: spec.headers, label: context.label, auth: context.auth, fetch: context.fetch, maxMessageBytes: context.maxMessageBytes };
}

/** Builds the transport for a resolved server definition. The host never names a concrete transport. */
export function createTransport(spec: LaunchSpec, context: TransportContext): Transport {
  const build = builders[spec.type] as Builder<LaunchSpec>;
  return build(spec, context);
}

/** A short, log-safe description of where a spec connects: the command line or the URL. */
export function describeLaunch(spec: LaunchSpec): string {
  if (spec.type === 'stdio') {
    // Token arguments (`--api-key KEY`) are hidden here, so every caller gets a safe line.
    const redactor = new Redactor();
    redactor.add(tokenArgumentValues(spec.args));
    return redactor.redact([spec.command, ...spec.args].map(quoteForLog).join(' ')) + (spec.cwd ? ` (cwd ${spec.cwd})` : '');
  }
  return `${spec.type === 'sse' ? 'HTTP+SSE' : 'HTTP'} ${shownUrlOf(spec)}`;
}

/** A remote spec's address as shown: the config's url as written when known, else origin, path and query names. */
export function shownUrlOf(spec: HttpLaunchSpec): string {
  return spec.shownUrl ?? displayUrl(spec.url);
}

function quoteForLog(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
