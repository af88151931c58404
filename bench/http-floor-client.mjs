// The HTTP floor: the least work a Node client can do over Streamable HTTP with the platform
// fetch (which ours must use, for VS Code's proxy support). One POST per message with the
// headers the spec asks of every client (Content-Type, Accept, Mcp-Session-Id,
// MCP-Protocol-Version), the body read as text, JSON.parse, and the pending request resolved
// by the id of the answer. An SSE answer is split on blank lines and its `data:` lines parsed,
// nothing more (no event ids, no resumption). No validation, no timeouts, no cancellation, no
// GET stream. close() DELETEs the session, as a client should.

export class HttpFloorClient {
  constructor(url) {
    this.url = url;
    this.pending = new Map();
    this.nextId = 1;
    this.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  }

  /** Posts one message; resolves when its answer (if any) has been dispatched. */
  async post(message) {
    const res = await fetch(this.url, { method: 'POST', headers: this.headers, body: JSON.stringify(message) });
    if (res.status === 202) {
      await res.arrayBuffer();
      return;
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${text}`);
    const sessionId = res.headers.get('mcp-session-id');
    if (sessionId !== null && this.headers['mcp-session-id'] === undefined) this.headers['mcp-session-id'] = sessionId;
    if (res.headers.get('content-type').startsWith('text/event-stream')) {
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
    if (sessionId === undefined) return;
    const res = await fetch(this.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    await res.arrayBuffer();
  }
}
