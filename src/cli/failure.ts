// How a failed run is said on stderr: one line, naming the server and what failed.
import { AuthorizationRequiredError } from '../auth/types';
import { McpError, RemoteError } from '../protocol/errors';
import { InputNotOfferedError } from '../protocol/mrtr';
import { findCause } from '../util/errorCause';

/** SDK servers put "MCP error -32602: " in front of their messages; the code is printed once. */
export function stripCodePrefix(message: string, code: number): string {
  return message.replace(new RegExp(`^(MCP error )?${code}:\\s*`), '');
}

export function describeFailure(err: unknown, label: string, failedTo: string): string {
  if (err instanceof InputNotOfferedError) {
    const what = { 'elicitation/create': 'input from you (a form)', 'sampling/createMessage': 'a language model (sampling)' }[err.request.method] ?? err.request.method;
    const asked = err.question ? `: it asks ${JSON.stringify(err.question)}` : '';
    return (
      `${label} needs ${what} to complete ${err.forMethod}${asked} [${err.request.method}]. ` +
      'mcp-host answers roots itself but declines forms and sampling on the command line; use MCP Host in VS Code (Run Tool…, Get Prompt…, Read Resource…) for this one'
    );
  }
  if (err instanceof RemoteError && err.message.startsWith(`${label} has no `)) return `${err.message} [${err.method}, error ${err.code}]`;
  if (err instanceof RemoteError) return `${label} answered ${err.method} with error ${err.code}: ${stripCodePrefix(err.message, err.code)}`;
  const signIn = findCause(err, AuthorizationRequiredError);
  if (signIn) return `${signIn.message} Run mcp-host in a terminal to sign in (or set MCP_HOST_SIGN_IN=1).`;
  if (err instanceof McpError) return err.message;
  if (err instanceof Error) return `${label} ${failedTo}: ${err.message}`;
  return String(err);
}

/** A message folded onto one line (a server's error text may span several). */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' | ');
}
