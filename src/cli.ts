import { runCli } from './cli/main';

// The headless CLI: the core floor plus config parsing, no `vscode`.
runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
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
