// What every subcommand (list, call, read, prompt, doctor, report) reads the same way: which server
// (a config entry, a URL or a command after --) and how to reach it.
import type { ProtocolEraSetting } from '../protocol/era';

/** A mistake on the command line: one line on stderr, exit status 2. */
export class UsageError extends Error {}

export interface ServerChoice {
  configFile?: string;
  serverName?: string;
  url?: string;
  headers: Record<string, string>;
  transport?: 'http' | 'sse';
  /** --era; else the config entry's protocolEra; else auto. */
  era?: ProtocolEraSetting;
  timeoutMs: number;
}

/**
 * Reads `arg` when it is one of the shared options, taking its value with `value()`; returns false
 * for any other argument, which the subcommand reads itself.
 */
export function readServerOption(arg: string, value: () => string, options: ServerChoice): boolean {
  switch (arg) {
    case '--config':
      options.configFile = value();
      return true;
    case '--server':
      options.serverName = value();
      return true;
    case '--timeout': {
      const v = value();
      const ms = Number(v);
      if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`--timeout takes a positive number of milliseconds, not ${JSON.stringify(v)}`);
      options.timeoutMs = ms;
      return true;
    }
    case '--url': {
      const v = value();
      if (!/^https?:\/\//i.test(v) || !URL.canParse(v)) throw new UsageError(`--url takes an http:// or https:// URL, not ${JSON.stringify(v)}`);
      options.url = v;
      return true;
    }
    case '--header': {
      const v = value();
      const colon = v.indexOf(':');
      const name = colon > 0 ? v.slice(0, colon).trim() : '';
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError('--header takes "Name: value", e.g. --header "X-Api-Key: $KEY"');
      options.headers[name] = v.slice(colon + 1).trim();
      return true;
    }
    case '--transport': {
      const v = value();
      if (v !== 'http' && v !== 'sse') throw new UsageError(`--transport is http or sse, not ${JSON.stringify(v)}`);
      options.transport = v;
      return true;
    }
    case '--era': {
      const v = value();
      if (v !== 'auto' && v !== 'modern' && v !== 'legacy') throw new UsageError(`--era is auto, modern or legacy, not ${JSON.stringify(v)}`);
      options.era = v;
      return true;
    }
    default:
      return false;
  }
}

/** The flags of the commands that talk to one server and print what it says (list, call, read, prompt, report). */
export interface RunFlags {
  json: boolean;
  verbose: boolean;
  tokenStore: boolean;
}

/** Reads --json, --verbose or --no-token-store into `options`; false for any other argument. */
export function readRunFlag(arg: string, options: RunFlags): boolean {
  switch (arg) {
    case '--json':
      options.json = true;
      return true;
    case '--verbose':
      options.verbose = true;
      return true;
    case '--no-token-store':
      options.tokenStore = false;
      return true;
    default:
      return false;
  }
}

/** A command line split at `--`: our own arguments, and the server command after it. */
export function splitAtDashDash(argv: readonly string[]): { own: readonly string[]; serverCommand: string[] } {
  const dashDash = argv.indexOf('--');
  return dashDash === -1 ? { own: argv, serverCommand: [] } : { own: argv.slice(0, dashDash), serverCommand: argv.slice(dashDash + 1) };
}

/** Our own arguments one by one, each with `value()`, which takes the next argument as its value. */
export function* eachArgument(own: readonly string[]): Generator<{ arg: string; value: () => string }> {
  for (let i = 0; i < own.length; i++) {
    const arg = own[i];
    yield {
      arg,
      value: () => {
        const v = own[++i];
        if (v === undefined) throw new UsageError(`${arg} needs a value`);
        return v;
      },
    };
  }
}
