// The loopback redirect listener for the authorization code flow (RFC 8252 §7.3):
// http://127.0.0.1:PORT/callback, never https://localhost. One answer, then it closes.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export const CALLBACK_PATH = '/callback';

export interface LoopbackRedirect {
  /** http://127.0.0.1:PORT/callback */
  readonly redirectUri: URL;
  readonly port: number;
  /**
   * Resolves with the query of the first callback carrying `expectedState`. Callbacks with
   * another state are answered with an error page and ignored (an old tab, or a forgery).
   * Rejects after the timeout or when closed first.
   */
  waitForCallback(expectedState: string): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /** Port to try first (the one a registered redirect URI names); 0 or absent for any. */
  readonly preferredPort?: number;
  readonly timeoutMs: number;
}

export async function startLoopback(options: LoopbackOptions): Promise<LoopbackRedirect> {
  const pending: { state?: string; resolve?: (q: URLSearchParams) => void; reject?: (e: Error) => void } = {};
  let settled = false;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // A forwarding proxy (VS Code in a browser) may keep its own prefix: /proxy/PORT/callback.
    if (req.method !== 'GET' || !url.pathname.endsWith(CALLBACK_PATH)) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    const q = url.searchParams;
    if (settled || !pending.state || q.get('state') !== pending.state) {
      page(res, 400, 'This sign-in link is not the one MCP Host is waiting for. Start the sign-in again from MCP Host.');
      return;
    }
    settled = true;
    const failed = q.has('error');
    page(
      res,
      200,
      failed
        ? `Sign-in did not complete (${q.get('error')}). You can close this tab and return to MCP Host.`
        : 'Signed in. You can close this tab and return to MCP Host.',
    );
    pending.resolve?.(q);
  });

  const port = await listen(server, options.preferredPort ?? 0).catch(async (err: NodeJS.ErrnoException) => {
    // The remembered port is taken: any port will do; the caller notices the change.
    if (err.code === 'EADDRINUSE' && options.preferredPort) return listen(server, 0);
    throw err;
  });
  const redirectUri = new URL(`http://127.0.0.1:${port}${CALLBACK_PATH}`);

  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const close = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    if (closed) return;
    closed = true;
    if (!settled) {
      settled = true;
      pending.reject?.(new Error('The sign-in was stopped before the browser came back.'));
    }
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    redirectUri,
    port,
    waitForCallback(expectedState: string) {
      pending.state = expectedState;
      return new Promise<URLSearchParams>((resolve, reject) => {
        pending.resolve = resolve;
        pending.reject = reject;
        timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          const minutes = Math.round(options.timeoutMs / 6000) / 10;
          reject(new Error(`No answer from the browser within ${minutes} minute(s); the sign-in was abandoned.`));
          void close();
        }, options.timeoutMs);
        timer.unref();
      });
    },
    close,
  };
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}

function page(res: http.ServerResponse, status: number, text: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>MCP Host</title></head><body style="font-family:sans-serif;margin:3em"><p>${escapeHtml(text)}</p></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end(body);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
