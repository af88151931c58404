import { ConnectionClosedError, NotAnMcpServerError, RemoteError, RequestTimeoutError, UnsupportedProtocolVersionError, describeClose, describeStderr } from '../protocol/errors';
import { TransportStartError } from '../transport/stdio';
import { HttpTransportError } from '../transport/httpError';
import { findCause } from '../util/errorCause';
import { errorMessage } from '../util/errorMessage';
import { describeLaunch, type HttpLaunchSpec, type LaunchSpec } from './transportFactory';

/**
 * Why a server did not start, and what to do, in one sentence or two: used by ServerConnection
 * for its error state and by the doctor for its handshake line. `stderr` is what the server said
 * while starting (its last lines); the caller redacts the result.
 */
export function explainStartFailure(name: string, err: unknown, spec: LaunchSpec, stderr: readonly string[]): string {
  if (spec.type !== 'stdio') return explainRemoteStartFailure(name, err, spec);
  if (err instanceof TransportStartError) {
    let hint = '';
    if (err.code === 'ENOENT' && !spec.command.includes('/') && !spec.command.includes('\\')) hint = ` ${commandNotOnPathHint()}`;
    return `Could not start "${name}": ${err.message}.${hint}`;
  }
  if (err instanceof UnsupportedProtocolVersionError) return `Server "${name}": ${err.message}`;
  if (err instanceof RequestTimeoutError) {
    const said = describeStderr(stderr);
    return `Server "${name}" started but did not answer initialize within ${err.timeoutMs} ms${said ? `. ${said}` : ''}. Check its log; it may be waiting for input or printing to stdout.`;
  }
  if (err instanceof NotAnMcpServerError) {
    return `Server "${name}" is not an MCP server: ${spec.command} sent our initialize request back instead of answering it (it echoes its input, as cat or a shell does). Check "command" and "args".`;
  }
  if (err instanceof RemoteError && err.method === 'initialize') {
    return `Server "${name}" refused initialize: ${err.message} (JSON-RPC error ${err.code}). Is the command an MCP server?`;
  }
  if (err instanceof ConnectionClosedError) {
    const info = err.closeInfo;
    return `Server "${name}" exited before answering initialize: ${info ? describeClose(info) : err.message}`;
  }
  return `Server "${name}" failed to start: ${errorMessage(err)}`;
}

/** What to do when a bare command name is not on the PATH VS Code was started with. */
export function commandNotOnPathHint(platform: NodeJS.Platform = process.platform): string {
  return (
    'VS Code may have been started without your shell profile: programs installed with nvm, volta, asdf or Homebrew are then not on its PATH. Use an absolute path in "command", or start VS Code from a terminal.' +
    (platform === 'win32' ? ' On Windows, use "npx.cmd" or the full path of npx.' : '')
  );
}

function explainRemoteStartFailure(name: string, err: unknown, spec: HttpLaunchSpec): string {
  const where = describeLaunch(spec);
  if (err instanceof UnsupportedProtocolVersionError) return `Server "${name}": ${err.message}`;
  if (err instanceof RequestTimeoutError) {
    return `Server "${name}" (${where}) did not answer initialize within ${err.timeoutMs} ms. Check that the URL is the server's MCP endpoint.`;
  }
  const http = findCause(err, HttpTransportError);
  if (http) return `Could not connect to "${name}": ${http.message}`;
  return `Could not connect to "${name}" (${where}): ${errorMessage(err)}`;
}
