// Preloaded (node --import) into the conformance suite's process. Its test servers call
// `listen(0)` and read `address()` straight after, which binds every interface; our tests use
// 127.0.0.1 only. So a host-less `listen(port[, cb])` binds 127.0.0.1 instead, synchronously as
// before (through the same internal step Node's own listen takes for a host-less port:
// `_listen2`, i.e. setupListenHandle). The suite's URLs say `localhost`, which resolves to it.
// Any other form of listen() is left alone.
import net from 'node:net';

const LOOPBACK = '127.0.0.1';
const originalListen = net.Server.prototype.listen;
// @ts-ignore internal, present in Node 20-24
const setupListenHandle = net.Server.prototype._listen2;

/** @this {any} @param {...any} args */
function listenOnLoopback(...args) {
  const [port, cb] = args;
  const hostless = typeof port === 'number' && (args.length === 1 || (args.length === 2 && typeof cb === 'function'));
  if (!hostless || typeof setupListenHandle !== 'function' || this._handle) return originalListen.apply(this, args);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return originalListen.apply(this, args);
  if (typeof cb === 'function') this.once('listening', cb);
  this._listeningId = (this._listeningId ?? 0) + 1;
  setupListenHandle.call(this, LOOPBACK, port, 4, undefined, undefined, 0);
  return this;
}

net.Server.prototype.listen = /** @type {any} */ (listenOnLoopback);
