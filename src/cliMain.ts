import { runCli } from './cli/main';
import { printable } from './cli/printable';
import { environmentProxyAgents, hasProxyVariables } from './cli/proxy';
import { whenRemoteLoads } from './host/loadRemote';

// The headless CLI: the core floor plus config parsing, no `vscode`. Started by cli.ts (dist/cli.js),
// which turns on Node's compile cache first.
// A reader that goes away (`| head`) ends the output, not the run with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

// HTTPS_PROXY / HTTP_PROXY / NO_PROXY for remote servers (the extension leaves proxies to VS Code),
// and keep-alive agents of the CLI's own for direct connections (cheaper per request than Node's global ones).
whenRemoteLoads((remote) =>
  remote.useHttpAgents(hasProxyVariables(process.env) ? environmentProxyAgents(remote.ownKeepAliveAgents) : remote.ownKeepAliveAgents),
);

// Every character printed passes through printable(): server text is untrusted (no escapes reach the terminal).
runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(printable(text)),
  stderr: (text) => process.stderr.write(printable(text)),
  cwd: process.cwd(),
  env: process.env,
  interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY) || process.env.MCP_HOST_SIGN_IN === '1',
  onInterrupt: (handler) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, handler);
    }
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`mcp-host: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 3;
  },
);
