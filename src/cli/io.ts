// What every subcommand of the CLI shares with main.ts: exit codes and the terminal it writes to.
// (A file of its own so the subcommands need not import main.ts, which imports them.)

/**
 * Exit statuses, as documented in the README. 1 is an error answer from a working server (a tool's
 * isError, or a JSON-RPC error such as an unknown tool); 3 is a server that could not be used.
 */
export const ExitCode = { Ok: 0, ToolError: 1, Usage: 2, ServerFailed: 3, Interrupted: 130 } as const;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** True when a person sits at the terminal: only then may a server ask to sign in. */
  interactive?: boolean;
  /** Called with a handler to run on Ctrl-C / SIGTERM (the server runs in its own process group). */
  onInterrupt?: (handler: () => void) => void;
}

/** A result on stdout: the protocol result as JSON with --json, else `readable()`. */
export function printResult(io: CliIo, json: boolean, result: unknown, readable: () => string): void {
  io.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : readable());
}
