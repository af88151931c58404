/**
 * Keep-alive agents of our own for direct connections, for a process VS Code does not proxy (the
 * CLI; in VS Code requests name no agent, see nodeHttp.ts directAgent).
 *
 * Why not Node's global agents: their `timeout` option makes every request add a socket timeout
 * listener (about a sixth of a small request's CPU, measured with 4,000 POSTs, 256 in flight).
 * Why not a plain keep-alive agent: without that option Node ignores the server's
 * `Keep-Alive: timeout=N` and keeps an idle socket until the server closes it, so a request could
 * go out on a socket the server is closing (ECONNRESET). These agents close a socket that stayed
 * free for IDLE_SOCKET_MS, or until a second before the server's hint if that is sooner.
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

/** How often free sockets are checked for the end of their idle time (so one may stay up to this much longer). */
export const IDLE_SWEEP_MS = 250;

/**
 * When a free socket's idle time is over (performance.now() ms: a monotonic clock, as the timers
 * of a socket timeout; the wall clock may be set back), and how long it was given.
 */
const idleUntil = Symbol('idleUntil');
const idleFor = Symbol('idleFor');
type IdleSocket = Socket & { [idleUntil]?: number; [idleFor]?: number };

/**
 * The idle time is noted when a socket becomes free, and one timer per agent (running only while
 * sockets are free) closes free sockets whose time is over. Not a socket timeout: node:net
 * re-arms that on every read and write of the socket (two timer-list inserts per request,
 * measured with 2,000 POSTs, 256 in flight). Node's own keepSocketAlive is not called: it reads
 * the hint through res.headers (an object of every header) and resets the socket's timeout per
 * request. What it does besides is done here (TCP keep-alive, unref), as its documentation says.
 * A taken socket is never closed for idleness: only free ones are looked at.
 */
function idleTimeouts<A extends http.Agent>(agent: A): A {
  const keepAliveMsecs = (agent as A & { keepAliveMsecs?: number }).keepAliveMsecs ?? 1000;
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = performance.now();
    let left = 0;
    for (const sockets of Object.values(agent.freeSockets) as IdleSocket[][]) {
      let closed = 0;
      for (const socket of sockets) {
        if ((socket[idleUntil] ?? 0) <= now) {
          socket.destroy();
          closed++;
        } else left++;
      }
      // A destroyed socket leaves the list only at its 'close' event, later. Until then it is
      // first in the list, where addRequest skips destroyed sockets (it takes the last one: lifo).
      if (closed > 0) sockets.sort((a, b) => Number(b.destroyed) - Number(a.destroyed));
    }
    if (left === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const idleMsOf = lastHintMemo();
  Object.assign(agent, {
    keepSocketAlive(socket: IdleSocket): boolean {
      const idleMs = idleMsOf(socket);
      // A hint of a second or less: the server may close the socket before it is reused (Node's rule).
      if (idleMs === 0) return false;
      socket.setKeepAlive(true, keepAliveMsecs);
      socket.unref();
      socket[idleUntil] = performance.now() + idleMs;
      socket[idleFor] = idleMs;
      sweeper ??= setInterval(sweep, IDLE_SWEEP_MS).unref();
      return true;
    },
  });
  return agent;
}

/** The idle time (ms) these agents gave a socket when it last became free; undefined for one never freed by them. */
export function idleTimeOf(socket: Socket): number | undefined {
  return (socket as IdleSocket)[idleFor];
}

/**
 * IDLE_SOCKET_MS, or a second less than the `Keep-Alive: timeout=N` of the answer just read (0: do
 * not keep the socket). The last hint's value is kept: a server sends the same one every time.
 */
function lastHintMemo(): (socket: Socket) => number {
  let lastHint: string | undefined;
  let lastMs = IDLE_SOCKET_MS;
  return (socket) => {
    const answer = (socket as Socket & { _httpMessage?: { res?: http.IncomingMessage } })._httpMessage?.res;
    const hint = answer === undefined ? undefined : keepAliveHeader(answer.rawHeaders);
    if (hint === undefined) return IDLE_SOCKET_MS;
    if (hint !== lastHint) {
      const seconds = hintSeconds(hint);
      lastMs = seconds === undefined ? IDLE_SOCKET_MS : Math.max(0, Math.min(IDLE_SOCKET_MS, seconds * 1000 - 1000));
      lastHint = hint;
    }
    return lastMs;
  };
}

/** The first Keep-Alive header, from the raw list (res.headers would build an object of every header). */
function keepAliveHeader(raw: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 10 && name.toLowerCase() === 'keep-alive') return raw[i + 1];
  }
  return undefined;
}

/**
 * The `timeout=N` of a Keep-Alive header (a server's value: read without a regular expression).
 * 0 counts: Node's server says `timeout=0` when it closes an idle socket within a second.
 */
function hintSeconds(header: string): number | undefined {
  for (const part of header.split(',')) {
    const [name, value] = part.split('=');
    if (name?.trim().toLowerCase() !== 'timeout' || value === undefined) continue;
    const text = value.trim();
    const seconds = Number(text);
    return text !== '' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  }
  return undefined;
}
