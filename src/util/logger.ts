/**
 * The logging surface the core and host floors write to. Shaped like VS Code's
 * LogOutputChannel so the editor floor can pass one straight through.
 */
export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const nullLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};
