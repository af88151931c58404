import { ConnectionClosedError, McpError, RemoteError } from './errors';
import { shownList, shownServerMessage, shownServerText } from '../util/serverText';
import type { ClientCapabilities } from './schemas';

/**
 * The two protocol eras (basic/versioning.mdx): legacy versions open with an `initialize`
 * handshake; modern ones (2026-07-28 on) carry version, identity and capabilities in every
 * request's `_meta`, and a server describes itself through `server/discover`.
 */
export type ProtocolEra = 'modern' | 'legacy';
export type ProtocolEraSetting = ProtocolEra | 'auto';

/** The modern versions we speak, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];
export const LATEST_MODERN_PROTOCOL_VERSION = MODERN_PROTOCOL_VERSIONS[0];

/** The reserved `_meta` keys of the modern era. */
export const MetaKey = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The error codes the modern era defines (-32020..-32099 is reserved for the spec). */
export const ModernErrorCode = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

const modernCodes = new Set<number>(Object.values(ModernErrorCode));

/**
 * A JSON-RPC error only a modern server sends: it proves the era. -32022 must carry
 * `data.supported`, -32021 `data.requiredCapabilities`; a bare code from a legacy server's own
 * numbering (they used -32000..-32099 freely) does not count.
 */
export function isRecognisedModernError(err: unknown): err is RemoteError {
  if (!(err instanceof RemoteError) || !modernCodes.has(err.code)) return false;
  const data = err.data as Record<string, unknown> | undefined;
  if (err.code === ModernErrorCode.UnsupportedProtocolVersion) return Array.isArray(data?.supported);
  if (err.code === ModernErrorCode.MissingRequiredClientCapability) return typeof data?.requiredCapabilities === 'object';
  return true;
}

/** The versions a -32022 error says the server supports. */
export function supportedVersionsOf(err: RemoteError): string[] {
  const supported = (err.data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string') : [];
}

/** The best version both sides speak: modern first, then legacy; undefined when none. */
export function pickVersion(
  theirs: readonly string[],
  legacy: readonly string[],
): { era: ProtocolEra; version: string } | undefined {
  const modern = MODERN_PROTOCOL_VERSIONS.find((v) => theirs.includes(v));
  if (modern) return { era: 'modern', version: modern };
  const old = legacy.find((v) => theirs.includes(v));
  return old ? { era: 'legacy', version: old } : undefined;
}

export function isModernVersion(version: string): boolean {
  return MODERN_PROTOCOL_VERSIONS.includes(version) || version >= LATEST_MODERN_PROTOCOL_VERSION;
}

/**
 * -32021: the server needs a client capability this request did not declare. In MCP Host that
 * means the editor (or the CLI) cannot answer that kind of question here.
 */
export class MissingClientCapabilityError extends McpError {
  override name = 'MissingClientCapabilityError';
  constructor(
    readonly method: string,
    label: string,
    readonly requiredCapabilities: ClientCapabilities,
    serverMessage: string,
  ) {
    const names = Object.keys(requiredCapabilities);
    const what = names.length > 0 ? shownList(names.slice(0, 10).map(describeCapability), ' and ', names.length) : 'a capability this client did not declare';
    super(
      ModernErrorCode.MissingRequiredClientCapability,
      `${label} cannot do ${method} without ${what}, which this client does not offer here (${shownServerMessage(serverMessage)}). ` +
        'Use it where that is available (the editor answers forms, sampling and roots; the CLI declines forms and sampling unless told otherwise).',
      { requiredCapabilities },
    );
  }
}

function describeCapability(name: string): string {
  switch (name) {
    case 'elicitation':
      return 'asking you for input (elicitation)';
    case 'sampling':
      return 'a language model of the client (sampling)';
    case 'roots':
      return 'the workspace folders (roots)';
    default:
      return `the ${shownServerText(name)} capability`;
  }
}


/**
 * The process closed when probed with `server/discover`. Over stdio that is what some legacy
 * servers do on any unknown method; the closed connection cannot be used for `initialize`, so
 * the caller must start the server again with the era set to 'legacy' (and may remember that
 * for this server configuration, as versioning.mdx allows). Still a ConnectionClosedError, with
 * the close's details, since a crash at start looks the same.
 */
export class ClosedOnEraProbeError extends ConnectionClosedError {
  override name = 'ClosedOnEraProbeError';
  readonly retryEra: ProtocolEra = 'legacy';
  constructor(cause: ConnectionClosedError) {
    super(
      `${cause.message}. It closed when asked server/discover (the probe for the 2026-07-28 protocol); ` +
        "if it speaks only an older protocol, start it again with protocolEra 'legacy'",
      cause.closeInfo,
    );
  }
}
