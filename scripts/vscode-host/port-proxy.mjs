// What code-server puts in front of VS Code when it runs in a browser: /proxy/PORT/REST is
// forwarded to http://127.0.0.1:PORT/REST. The test VS Code is started with
// VSCODE_PROXY_URI pointing here, so vscode.env.asExternalUri maps loopback addresses the way a
// person's code-server does (the OAuth redirect of a sign-in comes back through it).
import * as http from 'node:http';

/** Starts the proxy on 127.0.0.1; resolves with its VSCODE_PROXY_URI template and a close(). */
export async function startPortProxy() {
  const server = http.createServer((req, res) => {
    const match = /^\/proxy\/(\d+)(\/.*)?$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404).end('not a /proxy/PORT/ address');
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: Number(match[1]), path: match[2] ?? '/', method: req.method, headers: { ...req.headers, host: `127.0.0.1:${match[1]}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => res.writeHead(502).end(`proxy: ${err.message}`));
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    template: `http://127.0.0.1:${port}/proxy/{{port}}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
