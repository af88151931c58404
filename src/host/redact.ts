import type { Logger } from '../util/logger';
import type { ServerDefinition } from './config';
import type { LaunchSpec } from './launchSpec';

/** Variable and header names whose values are treated as secrets (`GITHUB_TOKEN`, `X-Api-Key`). */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|AUTH|CREDENTIAL|COOKIE|SESSION)/i;

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

export const REDACTED = '***';

/**
 * How the name of a flag, a variable or a JSON key ends when its value is a credential:
 * `--token`, `--api-key`, `GITHUB_TOKEN`, `client_secret`, `"apiKey"`. Narrower than
 * SECRET_NAME (which also matches `authorization_endpoint` or `sessionId`), because this one
 * is applied to any text, not only to names a configuration marks as environment variables.
 */
const KEY_TAIL = String.raw`(?:token|secret|password|passwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|cookie|authorization|auth)`;

/**
 * How long a name before KEY_TAIL may be. Every repetition over text a server controls is bounded
 * (or stops at a character the next part cannot start with), so each pattern costs at most a
 * constant per position: an unbounded `[\w.]*?` before KEY_TAIL made `.a.a.a…` quadratic (a 200 KB
 * log line held the extension host for 29 s). A test runs the ReDoS checker over every pattern.
 */
const NAME_MAX = 64;

/** A value stops at whitespace, a quote, or a separator of a query string or a list. */
const VALUE = String.raw`[^\s"'&,;<>]+`;

/** Token formats recognisable by their prefix (OpenAI/Anthropic, GitHub, Slack, AWS, GitLab, Google, npm, Hugging Face, JWT). */
const WELL_KNOWN_TOKEN = new RegExp(
  [
    String.raw`\bsk-[A-Za-z0-9_-]{16,}`,
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
    String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}`,
    String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
    String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
    String.raw`\bAIza[0-9A-Za-z_-]{35}`,
    String.raw`\bnpm_[A-Za-z0-9]{36}`,
    String.raw`\bhf_[A-Za-z0-9]{30,}`,
    // Only where a run of token characters starts: at every `eyJ` inside `-eyJ-eyJ…` the segments were scanned again (quadratic).
    String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`,
  ].join('|'),
  'g',
);

interface Rule {
  readonly pattern: RegExp;
  readonly replace: (match: string, ...groups: string[]) => string;
}

/** The pattern-based pass: forms that carry a credential whoever wrote them. Applied in order. */
const RULES: readonly Rule[] = [
  // Authorization: Bearer <token>, in headers, curl lines and error messages (not a challenge's `realm="…"`).
  { pattern: /\b(Bearer)\s+(?![A-Za-z][\w-]*=")[A-Za-z0-9._~+/=-]{8,}/gi, replace: (_m, word) => `${word} ${REDACTED}` },
  // user:password@ in a URL.
  // (From the `://` on: scanning back over a scheme at every word made `a+a+a+…` quadratic.)
  { pattern: /(:\/\/)[^\s/:@]+:[^\s/@]+@/g, replace: (_m, separator) => `${separator}${REDACTED}@` },
  // "apiKey": "value" in JSON (protocol traces, tool arguments), also JSON inside a JSON string (\"apiKey\": \"value\");
  // progressToken is an MCP request id, not a credential.
  {
    pattern: new RegExp(String.raw`(\\?)"([\w.-]{0,${NAME_MAX}}?${KEY_TAIL})\1"(\s{0,16}:\s{0,16})\1"(?:[^"\\]|\\.)*?\1"`, 'gi'),
    replace: (m, q, key, sep) => (/^progressToken$/i.test(key) ? m : `${q}"${key}${q}"${sep}${q}"${REDACTED}${q}"`),
  },
  // --token=value, --api-key value, -password value (the value does not start with "-").
  {
    pattern: new RegExp(String.raw`(^|[\s"'(\[=])(--?(?:[A-Za-z0-9][\w-]{0,${NAME_MAX}}?)?${KEY_TAIL})(=|\s{1,16})(?!-)(?:"[^"]*"|'[^']*'|${VALUE})`, 'gi'),
    replace: (_m, before, flag, sep) => `${before}${flag}${sep}${REDACTED}`,
  },
  // ?key=…, &sig=…, &X-Amz-Signature=…, ?code=… in an address: signed or keyed URLs.
  {
    pattern: new RegExp(String.raw`([?&](?:[\w.-]{0,${NAME_MAX}}?[_.-])?(?:key|sig|signature|code|credential)=)(${VALUE})`, 'gi'),
    replace: (_m, name) => `${name}${REDACTED}`,
  },
  { pattern: WELL_KNOWN_TOKEN, replace: () => REDACTED },
];


/** Replaces credentials recognisable by their form, without knowing their values. */
export function redactPatterns(text: string): string {
  let out = text;
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, rule.replace as (m: string, ...rest: string[]) => string);
  }
  return redactAssignments(out);
}

const KEY_TAIL_AT_END = new RegExp(String.raw`${KEY_TAIL}$`, 'i');
const NAME_CHAR = /[\w.]/;
const ASSIGNED_VALUE = new RegExp(VALUE, 'y');

/** Every pattern this module runs over text it does not control, for the ReDoS check in the tests. */
export const REDACTION_PATTERNS: readonly RegExp[] = [...RULES.map((rule) => rule.pattern), KEY_TAIL_AT_END, ASSIGNED_VALUE];

/**
 * GITHUB_TOKEN=value, access_token=value (environment dumps, query strings). Scanned from each `=`
 * backwards over at most NAME_MAX name characters: a regex scanning names forwards from every
 * separator is quadratic on `.a.a.a…`. A name right after `-` is a flag's (`--token=`), left to
 * the flag rule.
 */
function redactAssignments(text: string): string {
  let out = '';
  let copied = 0;
  for (let eq = text.indexOf('='); eq > 0; eq = text.indexOf('=', eq + 1)) {
    if (eq < copied || !KEY_TAIL_AT_END.test(text.slice(Math.max(0, eq - 16), eq))) continue;
    let start = eq;
    while (start > 0 && eq - start < NAME_MAX + 16 && NAME_CHAR.test(text[start - 1])) start--;
    if (start > 0 && text[start - 1] === '-') continue;
    ASSIGNED_VALUE.lastIndex = eq + 1;
    const value = ASSIGNED_VALUE.exec(text);
    if (!value) continue;
    out += `${text.slice(copied, eq + 1)}${REDACTED}`;
    copied = eq + 1 + value[0].length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Replaces every known secret value in a text, then every credential recognisable by its form. */
export class Redactor {
  private secrets: string[] = [];

  add(values: Iterable<string>): void {
    for (const v of values) {
      // The forms a value takes in a JSON trace or a URL are as secret as the value.
      for (const form of [v, JSON.stringify(v).slice(1, -1), encodeURIComponent(v)]) {
        if (form.length >= 4 && !this.secrets.includes(form)) this.secrets.push(form);
      }
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.secrets.length;
  }

  /** The text without the start of a known secret at its end (a cut that split the secret). */
  withoutSecretHeadAtEnd(text: string): string {
    let cut = text.length;
    for (const secret of this.secrets) {
      for (let k = Math.min(secret.length - 1, text.length); k >= 1; k--) {
        if (text.endsWith(secret.slice(0, k))) {
          cut = Math.min(cut, text.length - k);
          break;
        }
      }
    }
    return text.slice(0, cut);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return redactPatterns(out);
  }
}

/** How much of one log line is kept: a server's 200 KB log message is of no use whole in a log. */
export const LOG_LINE_MAX = 16 * 1024;

/**
 * A line cut to LOG_LINE_MAX characters with a marker saying how much went, then redacted. A known
 * secret cut in two loses its head too, so no part of it is left at the cut.
 */
export function redactLogLine(redactor: Redactor, line: string): string {
  if (line.length <= LOG_LINE_MAX) return redactor.redact(line);
  const kept = redactor.withoutSecretHeadAtEnd(line.slice(0, LOG_LINE_MAX));
  return `${redactor.redact(kept)}… [${line.length - kept.length} more characters cut]`;
}

/** A logger that passes every line through the redactor first (and cuts a line too long to read). */
export function redactingLogger(inner: Logger, redactor: Redactor): Logger {
  return {
    trace: (m) => inner.trace(redactLogLine(redactor, m)),
    debug: (m) => inner.debug(redactLogLine(redactor, m)),
    info: (m) => inner.info(redactLogLine(redactor, m)),
    warn: (m) => inner.warn(redactLogLine(redactor, m)),
    error: (m) => inner.error(redactLogLine(redactor, m)),
  };
}

const ENV_REFERENCE = /\$\{env:([^}]+)\}/g;

/** An absolute filesystem path: never a credential, and redacting it would hide where things are. */
function isAbsolutePath(value: string): boolean {
  return value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value) || value.startsWith('\\\\');
}

/**
 * Whether the value of `${env:NAME}` used in an argument, an env value or a header is a secret. Always when the name
 * looks secret. Otherwise too, unless the value is short or a path: a configuration usually
 * names an environment variable instead of writing the value precisely to keep a credential
 * out of the file, and a name like `GH` or `KEY2` says nothing.
 */
export function envReferenceIsSecret(name: string, value: string): boolean {
  if (looksSecret(name)) return true;
  return value.length >= 8 && !isAbsolutePath(value);
}

/** The values that follow a token-carrying flag in an argument list: `--token=V`, `--api-key V`. */
export function tokenArgumentValues(args: readonly string[]): string[] {
  const flag = new RegExp(String.raw`^--?(?:[A-Za-z0-9][\w-]*?)?${KEY_TAIL}$`, 'i');
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf('=');
    if (eq > 0 && flag.test(arg.slice(0, eq))) values.push(arg.slice(eq + 1));
    else if (flag.test(arg) && i + 1 < args.length && !args[i + 1].startsWith('-')) values.push(args[i + 1]);
  }
  return values;
}

/** Whether an HTTP header carries a credential, whatever its value looks like. */
export function isCredentialHeader(name: string): boolean {
  return looksSecret(name) || /^(authorization|proxy-authorization|cookie|set-cookie)$/i.test(name);
}

/** A credential header's value and its words, but not the scheme word (`Bearer`), which is no secret. */
export function headerSecretValues(value: string): string[] {
  return [value, ...value.split(/\s+/).filter((word) => !/^(bearer|basic|token|digest|negotiate)$/i.test(word))];
}

/**
 * The secrets a definition holds before any input is asked for: values of `${env:}` references
 * (see envReferenceIsSecret), literal values of secret-looking env variables and credential
 * headers, the OAuth client secret, and the values of token-carrying arguments. Known before a
 * start, so the command line in a tooltip is redacted too.
 */
export function definitionSecrets(def: ServerDefinition, processEnv: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  // Fields that say where something is (a program, a folder, an address): their `${env:}` values are
  // secret only by name, so logs keep showing what was started. The others may carry credentials.
  // A server's address is a carrier: a `${env:}` in a URL is how keys and signed query strings get in.
  const locations = def.type === 'stdio' ? [def.command, def.cwd ?? '', def.envFile ?? ''] : [];
  const carriers =
    def.type === 'stdio'
      ? [...def.args, ...Object.values(def.env).filter((v): v is string => v !== null)]
      : [def.url, ...Object.values(def.headers), def.oauth?.clientSecret ?? ''];
  for (const [texts, anyName] of [[locations, false], [carriers, true]] as const) {
    for (const text of texts) {
      for (const match of text.matchAll(ENV_REFERENCE)) {
        const value = processEnv[match[1]];
        if (value && (anyName ? envReferenceIsSecret(match[1], value) : looksSecret(match[1]))) values.push(value);
      }
    }
  }
  const literal = (v: string) => !v.includes('${');
  if (def.type === 'stdio') {
    for (const [name, value] of Object.entries(def.env)) if (value !== null && looksSecret(name) && literal(value)) values.push(value);
    values.push(...tokenArgumentValues(def.args).filter(literal));
  } else {
    for (const [name, value] of Object.entries(def.headers)) if (isCredentialHeader(name) && literal(value)) values.push(...headerSecretValues(value));
    if (def.oauth?.clientSecret && literal(def.oauth.clientSecret)) values.push(def.oauth.clientSecret);
  }
  return values;
}

/** The secrets of a resolved launch: token arguments, secret-looking env values, credential headers. */
export function launchSecrets(spec: LaunchSpec): string[] {
  if (spec.type === 'stdio') {
    const env = Object.entries(spec.env).filter((entry): entry is [string, string] => entry[1] !== null && looksSecret(entry[0]));
    return [...tokenArgumentValues(spec.args), ...env.map(([, value]) => value)];
  }
  return Object.entries(spec.headers).flatMap(([name, value]) => (isCredentialHeader(name) ? headerSecretValues(value) : []));
}
