// The opening of a client's connection, in either era: the legacy `initialize` handshake, and the
// modern `server/discover` probe with its fallback to `initialize` (basic/versioning.mdx).
import type { Transport } from '../transport/transport';
import { errorMessage } from '../util/errorMessage';
import type { Logger } from '../util/logger';
import type { McpClientOptions, ReadyClientState } from './clientOptions';
import type { JsonRpcConnection } from './connection';
import {
  ClosedOnEraProbeError,
  LATEST_MODERN_PROTOCOL_VERSION,
  MetaKey,
  ModernErrorCode,
  isRecognisedModernError,
  pickVersion,
  supportedVersionsOf,
  type ProtocolEra,
} from './era';
import { McpError, ErrorCode, UnsupportedProtocolVersionError, ConnectionClosedError, RemoteError, RequestTimeoutError } from './errors';
import { httpEraCache } from './eraCache';
import { findCause } from '../util/errorCause';
import { withTimeout } from '../util/withTimeout';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './connectionTypes';
import { fastTest } from './fast-check';
import { JsonRpcResultResponseSchema } from './jsonrpc';
import { DiscoverResultSchema, ImplementationSchema, InitializeResultSchema, ListToolsResultSchema, type ClientCapabilities, type DiscoverResult, type InitializeResult } from './schemas';

/** The protocol version we offer, and every version we accept from a server. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** The probe waits this long at most; a legacy server that stays silent on it costs no more. */
export const DEFAULT_ERA_PROBE_TIMEOUT_MS = 5_000;

/** What the handshake needs of its client. */
export interface HandshakeContext {
  readonly connection: JsonRpcConnection;
  readonly transport: Transport;
  readonly options: McpClientOptions;
  readonly logger: Logger;
  clientCapabilities(): ClientCapabilities;
  /** Makes `version` the one of every modern request's `_meta` (and of the HTTP header). */
  useModernVersion(version: string): void;
  /** The `_meta` of modern requests, as useModernVersion made it. */
  modernMeta(): Record<string, unknown> | undefined;
  /** The handshake is done: the client is ready, in the era the state names. */
  ready(state: ReadyClientState): void;
}

/** The handshake the era setting asks for; the transport has been started. */
export function handshake(ctx: HandshakeContext, signal: AbortSignal | undefined): Promise<InitializeResult> {
  prepareValidatorsOnce();
  const setting = ctx.options.protocolEra ?? 'auto';
  // A legacy-only transport (HTTP+SSE) has no modern server to find: asking would only cost a round trip.
  if (setting === 'legacy' || (setting === 'auto' && ctx.transport.legacyEraOnly)) return initialize(ctx, legacyOffer(ctx.options), signal);
  const key = ctx.transport.endpointKey;
  if (setting === 'auto' && key !== undefined) return handshakeRemembering(ctx, key, signal);
  return discover(ctx, setting, signal);
}

let validatorsPrepared = false;

/**
 * The first handshake of the process compiles the checks of the answers it waits for
 * (fast-check.ts compiles each on first use, about 1.5 ms in all) while its first request is under
 * way, so the compilation fills the round trip instead of delaying the first answer, for which
 * every session opened meanwhile waits (#21: 50 HTTP sessions opened at once). In the second check
 * phase of the event loop: in the first, a new HTTP connection was often not open yet, and the
 * compilation then delayed the request itself. Once per process.
 */
function prepareValidatorsOnce(): void {
  if (validatorsPrepared) return;
  validatorsPrepared = true;
  setImmediate(() =>
    setImmediate(() => {
      try {
        fastTest(JsonRpcResultResponseSchema);
        // The legacy answer: most servers today. A modern server's DiscoverResult is compiled when it comes.
        fastTest(InitializeResultSchema);
        // What the host and the CLI ask every server with tools right after connecting.
        fastTest(ListToolsResultSchema);
      } catch {
        // Only a head start: whatever failed here fails again where the answer is checked, and is handled there.
      }
    }),
  );
}

/**
 * 'auto' over HTTP, with the era this process remembers of the endpoint (eraCache.ts): a legacy
 * endpoint gets `initialize` at once, no probe; while another client probes an endpoint not yet
 * known, this one waits for its answer. A remembered legacy endpoint that refuses initialize as a
 * modern server does is probed after all (and remembered anew); one remembered as modern is
 * probed as usual (server/discover is its handshake), falling back as the probe does.
 */
async function handshakeRemembering(ctx: HandshakeContext, key: string, signal: AbortSignal | undefined): Promise<InitializeResult> {
  let era = httpEraCache.eraOf(key);
  if (era === undefined) {
    const underWay = httpEraCache.probeUnderWay(key);
    // One wait at most, no longer than this client's own probe would take: if that probe failed
    // or is slow, this client probes on its own (no chain of waits).
    if (underWay !== undefined) era = await untilAnswered(underWay, signal, probeTimeoutMs(ctx.options));
  }
  if (era === 'legacy') {
    try {
      return await initialize(ctx, legacyOffer(ctx.options), signal, true);
    } catch (err) {
      if (!refusedLikeModern(err)) {
        // Anything else (timeout, 5xx, network): initialize has closed the connection already,
        // and the next contact probes again rather than repeat a path that just failed.
        httpEraCache.forget(key);
        throw err;
      }
      if (ctx.connection.isClosed || signal?.aborted) {
        await closeQuietly(ctx);
        throw err;
      }
      ctx.logger.debug(`[${ctx.options.label}] initialize refused (${errorMessage(err)}), though this server answered as legacy before: probing with server/discover`);
      httpEraCache.forget(key);
    }
  }
  const claim = era === undefined && httpEraCache.probeUnderWay(key) === undefined ? httpEraCache.claimProbe(key) : undefined;
  const learned = (found: ProtocolEra | undefined) => {
    if (claim !== undefined) claim.settle(found);
    else if (found !== undefined) httpEraCache.remember(key, found);
  };
  try {
    return await discover(ctx, 'auto', signal, learned);
  } finally {
    // A probe that failed (network, 5xx, 401, aborted) teaches nothing, and releases its waiters;
    // after an answer this does nothing.
    learned(undefined);
  }
}

/**
 * The era another client's probe found (undefined: it failed), or undefined at once when aborted,
 * or after `timeoutMs` (that probe ends only with its client's whole handshake, which may take
 * that client's own, longer, timeouts).
 */
function untilAnswered(answer: Promise<ProtocolEra | undefined>, signal: AbortSignal | undefined, timeoutMs: number): Promise<ProtocolEra | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      stop();
      resolve(undefined);
    };
    const timer = setTimeout(onAbort, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (era) => {
        stop();
        resolve(era);
      },
      () => onAbort(),
    );
  });
}

/**
 * initialize refused the way a modern-only server refuses it: a JSON-RPC error, or over HTTP a
 * 400/404/405 (versioning.mdx: such a server names its versions in the error).
 */
function refusedLikeModern(err: unknown): boolean {
  if (findCause(err, RemoteError)) return true;
  const status = httpStatusOf(err);
  return status === 400 || status === 404 || status === 405;
}

/** The HTTP status in an error's causes, if any (without importing the HTTP transport here). */
function httpStatusOf(err: unknown): number | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const status = (e as { status?: unknown }).status;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/**
 * The legacy handshake: `initialize`, a version check, then `notifications/initialized`.
 * `keepOpenOnRefusal`: a refusal as a modern server makes leaves the connection open for the probe.
 */
async function initialize(ctx: HandshakeContext, offered: string, signal: AbortSignal | undefined, keepOpenOnRefusal = false): Promise<InitializeResult> {
  const { connection, options, transport } = ctx;
  const handshakeMs = options.initializeTimeoutMs ?? options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // The probe may have set a modern version; initialize goes out without one.
  transport.setProtocolVersion?.(undefined);
  let result: InitializeResult;
  try {
    result = await connection.request(
      'initialize',
      { protocolVersion: offered, capabilities: ctx.clientCapabilities(), clientInfo: options.clientInfo },
      InitializeResultSchema,
      { timeoutMs: handshakeMs, signal },
    );
  } catch (err) {
    if (!(keepOpenOnRefusal && refusedLikeModern(err))) await closeQuietly(ctx);
    throw err;
  }
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
    await closeQuietly(ctx);
    throw new UnsupportedProtocolVersionError(offered, result.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS);
  }
  if (connection.isClosed) {
    throw new McpError(ErrorCode.ConnectionClosed, `${options.label} closed during the handshake`);
  }
  ctx.ready({ kind: 'ready', initializeResult: result, era: 'legacy' });
  // HTTP transports send the negotiated version as a header on every later request.
  transport.setProtocolVersion?.(result.protocolVersion);
  // A server that never takes the notification (an HTTP POST left unanswered, a pipe it stopped
  // reading) must not hold the start forever: it gets the time initialize had.
  try {
    await withTimeout(connection.notify('notifications/initialized'), handshakeMs, () => new RequestTimeoutError('notifications/initialized', handshakeMs, `${options.label} did not take it`));
  } catch (err) {
    await closeQuietly(ctx);
    throw err;
  }
  return result;
}

/**
 * The modern opening (basic/versioning.mdx, transports/stdio.mdx "Backward Compatibility"):
 * `server/discover` with our version in `_meta`. A DiscoverResult or a recognised modern error
 * means modern (-32022 is answered with a version both speak); in 'auto', anything else (any
 * other error, no answer within the probe timeout) means legacy: `initialize` follows.
 */
async function discover(
  ctx: HandshakeContext,
  setting: 'auto' | 'modern',
  signal: AbortSignal | undefined,
  learned: (era: ProtocolEra) => void = () => undefined,
): Promise<InitializeResult> {
  const { connection, options } = ctx;
  const probing = setting === 'auto';
  const timeoutMs = probing ? probeTimeoutMs(options) : (options.initializeTimeoutMs ?? options.requestTimeoutMs);
  const offered = options.protocolVersion;
  let version = offered !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_MODERN_PROTOCOL_VERSION;
  const tried = new Set<string>();
  /** A server that refuses a version it then names as supported is asked once more. */
  let askedAgain = false;
  /** The probe timed out and initialize was then refused as a modern server refuses it: asked once more. */
  let probedAgain = false;
  for (;;) {
    tried.add(version);
    ctx.useModernVersion(version);
    let result: DiscoverResult;
    try {
      result = await connection.request('server/discover', { _meta: ctx.modernMeta() }, DiscoverResultSchema, { timeoutMs, signal });
    } catch (err) {
      if (isRecognisedModernError(err) && err.code === ModernErrorCode.UnsupportedProtocolVersion) {
        const choice = pickVersion(supportedVersionsOf(err), SUPPORTED_PROTOCOL_VERSIONS);
        if (choice?.era === 'legacy') {
          learned('legacy');
          return initialize(ctx, choice.version, signal);
        }
        const again = choice?.version === version && !askedAgain;
        if (choice && (!tried.has(choice.version) || again)) {
          if (again) askedAgain = true;
          version = choice.version;
          continue;
        }
        await closeQuietly(ctx);
        throw new UnsupportedProtocolVersionError(version, supportedVersionsOf(err), allVersions());
      }
      if (!probing || isRecognisedModernError(err) || signal?.aborted) {
        await closeQuietly(ctx);
        throw err;
      }
      if (connection.isClosed) {
        throw err instanceof ConnectionClosedError ? new ClosedOnEraProbeError(err) : err;
      }
      if (!answeredLikeLegacy(err)) {
        // Not sent, or refused for a reason initialize would meet too (sign-in, network).
        await closeQuietly(ctx);
        throw err;
      }
      ctx.logger.debug(`[${options.label}] server/discover failed (${errorMessage(err)}): using the legacy initialize handshake`);
      if (!(err instanceof RequestTimeoutError)) {
        learned('legacy');
        return initialize(ctx, legacyOffer(options), signal);
      }
      // Silence is no answer by itself (a server may be slow to start, or wait for a sign-in):
      // legacy is remembered only once initialize has worked, so the next sessions skip a probe
      // that would time out again. A modern server refuses initialize: it is asked once more.
      let initialized: InitializeResult;
      try {
        initialized = await initialize(ctx, legacyOffer(options), signal, !probedAgain);
      } catch (refusal) {
        if (probedAgain || !refusedLikeModern(refusal) || connection.isClosed || signal?.aborted) {
          if (!connection.isClosed) await closeQuietly(ctx);
          throw refusal;
        }
        ctx.logger.debug(`[${options.label}] initialize refused (${errorMessage(refusal)}) after server/discover timed out: the server may be modern and was slow; asking server/discover again`);
        probedAgain = true;
        continue;
      }
      learned('legacy');
      return initialized;
    }
    const choice = pickVersion(result.supportedVersions, SUPPORTED_PROTOCOL_VERSIONS);
    if (!choice) {
      await closeQuietly(ctx);
      throw new UnsupportedProtocolVersionError(version, result.supportedVersions, allVersions());
    }
    learned(choice.era);
    if (choice.era === 'legacy') return initialize(ctx, choice.version, signal);
    return becomeModern(ctx, result, choice.version);
  }
}

function becomeModern(ctx: HandshakeContext, result: DiscoverResult, version: string): InitializeResult {
  if (ctx.connection.isClosed) {
    throw new McpError(ErrorCode.ConnectionClosed, `${ctx.options.label} closed during server/discover`);
  }
  const info = ImplementationSchema.safeParse(result._meta?.[MetaKey.serverInfo]);
  const initializeResult: InitializeResult = {
    protocolVersion: version,
    capabilities: result.capabilities,
    // serverInfo is only a SHOULD in the modern era.
    serverInfo: info.success ? info.data : { name: 'unnamed server', version: 'unknown' },
  };
  if (result.instructions !== undefined) initializeResult.instructions = result.instructions;
  ctx.ready({ kind: 'ready', initializeResult, era: 'modern', discoverResult: result });
  return initializeResult;
}

/** How long the era probe waits for an answer: the probe's own timeout, or the handshake's if shorter. */
function probeTimeoutMs(options: McpClientOptions): number {
  const handshakeTimeout = options.initializeTimeoutMs ?? options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return Math.min(options.eraProbeTimeoutMs ?? DEFAULT_ERA_PROBE_TIMEOUT_MS, handshakeTimeout);
}

function legacyOffer(options: McpClientOptions): string {
  const offered = options.protocolVersion;
  return offered !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_PROTOCOL_VERSION;
}

function allVersions(): string[] {
  return [LATEST_MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];
}

/**
 * An answer to the probe that says "legacy": a JSON-RPC error or a timeout; or, over HTTP, a
 * 400/404/405 (what legacy servers answer a request outside their session). A send that failed
 * otherwise (401, 5xx, no connection) is no answer about the era.
 */
function answeredLikeLegacy(err: unknown): boolean {
  const cause = (err as { cause?: unknown }).cause;
  if (!(err instanceof ConnectionClosedError) || cause === undefined) return true;
  const status = (cause as { status?: unknown }).status;
  return status === 400 || status === 404 || status === 405;
}

async function closeQuietly(ctx: HandshakeContext): Promise<void> {
  try {
    await ctx.connection.close();
  } catch (err) {
    ctx.logger.debug(`[${ctx.options.label}] close after a failed handshake: ${errorMessage(err)}`);
  }
}
