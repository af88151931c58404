/**
 * Keep-alive agents of our own for direct connections, for a process VS Code does not proxy (the
 * CLI; in VS Code requests name no agent, see nodeHttp.ts directAgent).
 *
 * Why not Node's global agents: their `timeout` option makes every request add a socket timeout
 * listener (about a sixth of a small request's CPU, measured with 4,000 POSTs, 256 in flight).
 * Why not a plain keep-alive agent: without that option Node ignores the server's
 * `Keep-Alive: timeout=N` and keeps an idle socket until the server closes it, so a request could
 * go out on a socket the server is closing (ECONNRESET). These agents time out an idle socket
 * only while it is idle: IDLE_SOCKET_MS, or a second before the server's hint if that is sooner.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';

/** Longest a free socket is kept (Node's own servers close an idle connection after 5 s). */
export const IDLE_SOCKET_MS = 4_000;

const AGENT_OPTIONS = { keepAlive: true, scheduling: 'lifo' } as const;

let httpAgent: http.Agent | undefined;
let httpsAgent: https.Agent | undefined;

/** The agent for a direct connection to `url`: one per protocol for the whole process. */
export function ownKeepAliveAgents(url: URL): http.Agent {
  if (url.protocol === 'https:') return (httpsAgent ??= idleTimeouts(new https.Agent(AGENT_OPTIONS)));
  return (httpAgent ??= idleTimeouts(new http.Agent(AGENT_OPTIONS)));
}

/** The idle timeout is armed when a socket becomes free and disarmed when a request takes it. */
function idleTimeouts<A extends http.Agent>(agent: A): A {
  const keep = agent.keepSocketAlive.bind(agent) as unknown as (socket: Socket) => boolean;
  const reuse = agent.reuseSocket.bind(agent);
  Object.assign(agent, {
    keepSocketAlive(socket: Socket): boolean {
      if (!keep(socket)) return false;
      socket.setTimeout(idleMsOf(socket));
      return true;
    },
    reuseSocket(socket: Socket, request: http.ClientRequest): void {
      socket.setTimeout(0);
      reuse(socket, request);
    },
  });
  return agent;
}

/** IDLE_SOCKET_MS, or a second less than the `Keep-Alive: timeout=N` of the answer just read. */
function idleMsOf(socket: Socket): number {
  const answer = (socket as Socket & { _httpMessage?: { res?: http.IncomingMessage } })._httpMessage?.res;
  const hint = answer?.headers['keep-alive'];
  const seconds = typeof hint === 'string' ? hintSeconds(hint) : undefined;
  return seconds === undefined ? IDLE_SOCKET_MS : Math.max(0, Math.min(IDLE_SOCKET_MS, seconds * 1000 - 1000));
}

/** The `timeout=N` of a Keep-Alive header (a server's value: read without a regular expression). */
function hintSeconds(header: string): number | undefined {
  for (const part of header.split(',')) {
    const [name, value] = part.split('=');
    if (name?.trim().toLowerCase() !== 'timeout' || value === undefined) continue;
    const seconds = Number(value.trim());
    return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  }
  return undefined;
}
