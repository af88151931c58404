import { McpClient } from '../../protocol/client';
import { ConnectionClosedError, RequestTimeoutError } from '../../protocol/errors';
import { ClosedOnEraProbeError, type ProtocolEraSetting } from '../../protocol/era';
import type { Transport } from '../../transport/transport';
import { AuthorizationRequiredError, type ServerAuthorization } from '../../auth/types';
import { findCause } from '../../util/errorCause';
import { explainStartFailure } from '../startFailure';
import { createTransport, describeLaunch, type LaunchSpec } from '../transportFactory';
import type { DoctorCheck, DoctorEnvironment } from './types';

/** How many of the first stderr lines the report shows. */
const SHOWN_STDERR_LINES = 5;
/** How many stderr lines are kept for explaining a failure (its last ones matter most). */
const KEPT_STDERR_LINES = 200;

export interface HandshakeInput {
  readonly name: string;
  readonly spec: LaunchSpec;
  readonly era?: ProtocolEraSetting;
  readonly auth?: ServerAuthorization;
  readonly file: string;
  readonly env: DoctorEnvironment;
}

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * Starts the server once, as a start would (the same transport factory and client), up to ready:
 * the era and protocol version it negotiates, its capabilities, its first stderr lines and how
 * long it took; then stops it. A failure is explained with the same texts as a failed start.
 * The caller redacts the result.
 */
export async function dryHandshake(input: HandshakeInput): Promise<DoctorCheck> {
  const { name, spec, env } = input;
  const title = 'Handshake';
  const now = env.now ?? (() => performance.now());
  const stderr: string[] = [];
  let transport: Transport | undefined;
  let client: McpClient | undefined;
  const attempt = (era: ProtocolEraSetting | undefined): McpClient => {
    transport = createTransport(spec, { label: name, shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 1000 }, auth: input.auth });
    transport.onLog((line) => {
      if (stderr.length < KEPT_STDERR_LINES) stderr.push(line);
    });
    client = new McpClient(transport, { label: `server '${name}'`, clientInfo: env.clientInfo, requestTimeoutMs: env.timeoutMs, protocolEra: era, logger: silent }, {});
    return client;
  };
  const started = now();
  /** Set when the server ended the process on the era probe and was started again. */
  let restartedAs: ProtocolEraSetting | undefined;
  try {
    let era = input.era;
    let result;
    try {
      result = await attempt(era).connect();
    } catch (err) {
      if (!(err instanceof ClosedOnEraProbeError) || era === err.retryEra) throw err;
      // A legacy server that exits on server/discover: once more in the era the error names, as a start does.
      client?.dispose();
      await transport?.close().catch(() => undefined);
      stderr.length = 0; // the second process says it again
      era = err.retryEra;
      restartedAs = era;
      result = await attempt(era).connect();
    }
    const elapsed = Math.round(now() - started);
    const caps = Object.keys(result.capabilities);
    const eraText = client?.era === 'modern' ? 'modern era: server/discover' : 'legacy era: initialize';
    const parts = [
      `Ready in ${elapsed} ms: ${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion} (${eraText}).`,
      `Capabilities: ${caps.length ? caps.join(', ') : 'none'}.`,
    ];
    const said = firstLines(stderr, spec);
    if (said) parts.push(said);
    if (restartedAs) {
      // Every start pays for a process that dies on the probe: the setting skips it.
      parts.push(`It ended its process when probed with server/discover (the 2026-07-28 era probe) and was started again as ${restartedAs}.`);
      return {
        id: 'handshake',
        title,
        status: 'warn',
        detail: parts.join(' '),
        fix: `Add "protocolEra": "${restartedAs}" to the server in ${input.file} (on the command line: --era ${restartedAs}): it starts once, without the probe.`,
      };
    }
    return { id: 'handshake', title, status: 'pass', detail: parts.join(' ') };
  } catch (err) {
    const elapsed = Math.round(now() - started);
    if (findCause(err, AuthorizationRequiredError)) {
      return { id: 'handshake', title, status: 'fail', detail: `Server "${name}" needs you to sign in (after ${elapsed} ms).`, fix: env.signInHint(name) };
    }
    const explained = explainStartFailure(name, err, spec, stderr.slice(-20));
    // The first lines, unless the explanation already quotes every one of them.
    const said = stderr.length > 0 && stderr.every((line) => line.trim() === '' || explained.includes(line.trim())) ? undefined : firstLines(stderr, spec);
    return {
      id: 'handshake',
      title,
      status: 'fail',
      detail: `${explained}${/[.!?]$/.test(explained) ? '' : '.'} (after ${elapsed} ms)${said ? ` ${said}` : ''}`,
      fix: fixFor(err, stderr, spec, input.file),
    };
  } finally {
    client?.dispose();
    await transport?.close().catch(() => undefined);
  }
}

function firstLines(lines: readonly string[], spec: LaunchSpec): string | undefined {
  if (spec.type !== 'stdio') return undefined;
  const kept = lines.filter((l) => l.trim() !== '').slice(0, SHOWN_STDERR_LINES);
  if (kept.length === 0) return 'It wrote nothing on stderr.';
  return `First stderr lines: ${kept.map((l) => l.trim()).join(' | ')}`;
}

/**
 * A variable a server says it needs: `API_KEY is not set`, `Missing GITHUB_TOKEN`, `set the
 * FOO_BAR environment variable`. Only a name in such a context counts, and never a word followed
 * by a colon (`ERROR: …`, `FATAL: …`) or a log level: those are how a line starts, not a name.
 * Each pattern is bounded (a line is cut at MISSING_VARIABLE_LINE_CHARS), so linear enough on any text.
 */
const NEEDED = String.raw`(?:is not set|not set|is required|is missing|must be set|is undefined|environment variable|env var)`;
const MISSING_VARIABLE = [
  // DATABASE_URL … is not set (a name with an underscore, the words within 40 characters)
  new RegExp(String.raw`\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b(?!:)[^\n]{0,40}?\b${NEEDED}`, 'g'),
  // APIKEY is not set (any capitalised name, the words right after it)
  new RegExp(String.raw`\b([A-Z][A-Z0-9_]{2,})\b(?!:)\s+${NEEDED}`, 'g'),
  // missing GITHUB_TOKEN, set FOO_BAR, requires API_KEY
  /\b(?:[Mm]issing|MISSING|[Ss]et|SET|[Pp]rovide|[Rr]equires?)\b[^\n]{0,30}?\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b(?!:)/g,
];
const MISSING_VARIABLE_LINE_CHARS = 1000;
/** Words that start log lines in capitals; never taken for a variable's name. */
const LOG_WORDS = new Set(['ERROR', 'ERR', 'FATAL', 'WARN', 'WARNING', 'INFO', 'DEBUG', 'TRACE', 'PANIC', 'CRITICAL', 'NOTICE', 'ALERT', 'EMERGENCY', 'FAIL', 'FAILED', 'FAILURE']);

/** The environment variable the server's stderr says is missing, if any (the first one named). */
export function missingVariableIn(lines: readonly string[]): string | undefined {
  for (const full of lines) {
    const line = full.length > MISSING_VARIABLE_LINE_CHARS ? full.slice(0, MISSING_VARIABLE_LINE_CHARS) : full;
    for (const pattern of MISSING_VARIABLE) {
      for (const match of line.matchAll(pattern)) {
        if (!LOG_WORDS.has(match[1])) return match[1];
      }
    }
  }
  return undefined;
}

/** What to do about a failed handshake, from what the server said. */
function fixFor(err: unknown, stderr: readonly string[], spec: LaunchSpec, file: string): string {
  if (spec.type !== 'stdio') {
    if (err instanceof RequestTimeoutError) return `Check that "url" in ${file} is the server's MCP endpoint.`;
    return `Check that the server is running and that "url" in ${file} is its MCP endpoint.`;
  }
  const text = stderr.join('\n');
  if (/Cannot find module|MODULE_NOT_FOUND|ERR_MODULE_NOT_FOUND/.test(text)) {
    return `A module is missing: install the server's dependencies (npm install in its folder), or correct the script path in "args" in ${file}.`;
  }
  if (/ModuleNotFoundError|No module named/.test(text)) {
    return 'A Python module is missing: install it into the Python the server runs with (pip install …), or start the server with uvx.';
  }
  const variable = missingVariableIn(stderr);
  if (variable) return `The server asks for ${variable}: give it in "env" of the server in ${file} (its value, or \${input:…} with a password input kept in secret storage), or in an "envFile".`;
  const rerun = `Run it in a terminal to see it fail the same way: ${describeLaunch(spec)}`;
  if (err instanceof RequestTimeoutError) return `It may be waiting for input, or writing something other than MCP messages to stdout. ${rerun}`;
  if (err instanceof ConnectionClosedError) return `Read its stderr above. ${rerun}`;
  return rerun;
}
