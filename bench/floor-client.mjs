// The floor: the least work a Node client can do over stdio. Spawn, write JSON lines, split
// stdout on '\n' (each byte scanned once, each line concatenated once), JSON.parse, and
// resolve the pending request by id. No validation, no timeouts, no cancellation, no events.
// Messages sent in the same tick leave in one write (one syscall), as ours does: a floor
// that wrote each message alone would not be the least work a client can do.
// Nothing built on Node streams and JSON can be meaningfully cheaper than this.
import { spawn } from 'node:child_process';

export class FloorClient {
  constructor(command, args, env) {
    this.command = command;
    this.args = args;
    this.env = env;
    this.pending = new Map();
    this.nextId = 1;
    this.child = undefined;
    this.exited = undefined;
    this.outbox = '';
    this.flush = () => {
      if (this.outbox.length === 0) return;
      const data = this.outbox;
      this.outbox = '';
      this.child.stdin.write(data);
    };
  }

  write(line) {
    if (this.outbox.length === 0) process.nextTick(this.flush);
    this.outbox += line;
  }

  start() {
    // detached (its own session and process group), as StdioTransport spawns servers: with the
    // kernel's autogroup scheduling, that decides how much CPU the servers get when other
    // sessions load the machine, so the floor and ours must not differ in it.
    const child = spawn(this.command, this.args, { env: this.env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', resolve));
    let parts = [];
    let partsBytes = 0;
    child.stdout.on('data', (chunk) => {
      let start = 0;
      let nl = chunk.indexOf(10);
      while (nl !== -1) {
        let text;
        if (partsBytes > 0) {
          parts.push(chunk.subarray(start, nl));
          text = Buffer.concat(parts, partsBytes + nl - start).toString();
          parts = [];
          partsBytes = 0;
        } else {
          text = chunk.toString('utf8', start, nl);
        }
        this.onLine(text);
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      if (start < chunk.length) {
        parts.push(start === 0 ? chunk : chunk.subarray(start));
        partsBytes += chunk.length - start;
      }
    });
    child.once('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error('server exited'));
      this.pending.clear();
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  }

  onLine(text) {
    if (text.length === 0) return;
    const msg = JSON.parse(text);
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
      this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method, params) {
    this.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  async close() {
    this.flush();
    this.child.stdin.end();
    await this.exited;
  }
}
