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

/**
 * The idle timeout is set when a socket becomes free, and only when its value changes (the
 * server's hint rarely does). Node's own keepSocketAlive is not called: it reads the hint through
 * res.headers (an object of every header) and resets a timeout it did not set to 0, so ours was
 * set twice per request (measured with 2,000 POSTs, 256 in flight: a twentieth of a small
 * request's CPU). What it does besides is done here (TCP keep-alive, unref), as its documentation says.
 * A taken socket keeps its timer, which every read and write restarts; should it fire while a
 * request waits for a silent server, nothing happens (Node's agent destroys a socket on
 * 'timeout' only while it is free, and requests set no timeout of their own): a socket is
 * closed only after its idle time, free.
 */
function idleTimeouts<A extends http.Agent>(agent: A): A {
  const keepAliveMsecs = (agent as A & { keepAliveMsecs?: number }).keepAliveMsecs ?? 1000;
  Object.assign(agent, {
    keepSocketAlive(socket: Socket): boolean {
      const idleMs = idleMsOf(socket);
      // A hint of a second or less: the server may close the socket before it is reused (Node's rule).
      if (idleMs === 0) return false;
      socket.setKeepAlive(true, keepAliveMsecs);
      socket.unref();
      if (socket.timeout !== idleMs) socket.setTimeout(idleMs);
      return true;
    },
  });
  return agent;
}

/** IDLE_SOCKET_MS, or a second less than the `Keep-Alive: timeout=N` of the answer just read (0: do not keep the socket). */
function idleMsOf(socket: Socket): number {
  const answer = (socket as Socket & { _httpMessage?: { res?: http.IncomingMessage } })._httpMessage?.res;
  const hint = answer === undefined ? undefined : keepAliveHeader(answer.rawHeaders);
  const seconds = hint === undefined ? undefined : hintSeconds(hint);
  return seconds === undefined ? IDLE_SOCKET_MS : Math.max(0, Math.min(IDLE_SOCKET_MS, seconds * 1000 - 1000));
}

/** The first Keep-Alive header, from the raw list (res.headers would build an object of every header). */
function keepAliveHeader(raw: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 10 && name.toLowerCase() === 'keep-alive') return raw[i + 1];
  }
  return undefined;
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
