// The HTTP floor: the least work a Node client can do over Streamable HTTP with the platform
// fetch (which ours must use, for VS Code's proxy support). One POST per message with the
// headers the spec asks of every client (Content-Type, Accept, Mcp-Session-Id,
// MCP-Protocol-Version), the body read as text, JSON.parse, and the pending request resolved
// by the id of the answer. An SSE answer is split on blank lines and its `data:` lines parsed,
// nothing more (no event ids, no resumption). No validation, no timeouts, no cancellation, no
// GET stream. close() DELETEs the session, as a client should.
//
// With { socket: true } it posts through node:http and a keep-alive Agent instead of fetch: the
// second, lower floor ("socket"), the least a client can pay for HTTP in Node at all.
import http from 'node:http';

/** One request through node:http on a keep-alive agent; resolves with status, headers and the body as text. */
function postWithAgent(agent, url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, header: (name) => res.headers[name] ?? null, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function postWithFetch(url, method, headers, body) {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, ok: res.ok, header: (name) => res.headers.get(name), text };
}

export class HttpFloorClient {
  constructor(url, { socket = false } = {}) {
    this.url = url;
    const agent = socket ? new http.Agent({ keepAlive: true, maxSockets: Infinity }) : undefined;
    this.send = socket ? (method, headers, body) => postWithAgent(agent, url, method, headers, body) : (method, headers, body) => postWithFetch(url, method, headers, body);
    this.agent = agent;
    this.pending = new Map();
    this.nextId = 1;
    this.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  }

  /** Posts one message; resolves when its answer (if any) has been dispatched. */
  async post(message) {
    const res = await this.send('POST', this.headers, JSON.stringify(message));
    if (res.status === 202) return;
    const text = res.text;
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${text}`);
    const sessionId = res.header('mcp-session-id');
    if (sessionId !== null && this.headers['mcp-session-id'] === undefined) this.headers['mcp-session-id'] = sessionId;
    if (res.header('content-type').startsWith('text/event-stream')) {
      for (const event of text.split('\n\n')) {
        let data = '';
        for (const line of event.split('\n')) {
          if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
        }
        if (data) this.dispatch(JSON.parse(data));
      }
    } else {
      this.dispatch(JSON.parse(text));
    }
  }

  dispatch(msg) {
    const p = this.pending.get(msg.id);
    if (p === undefined) return;
    this.pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params }).catch(reject);
    });
  }

  notify(method, params) {
    return this.post({ jsonrpc: '2.0', method, params });
  }

  setProtocolVersion(version) {
    this.headers = { ...this.headers, 'mcp-protocol-version': version };
  }

  async close() {
    const sessionId = this.headers['mcp-session-id'];
    if (sessionId !== undefined) await this.send('DELETE', { 'mcp-session-id': sessionId }, undefined);
    this.agent?.destroy();
  }
}
