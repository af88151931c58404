import type { Logger } from '../util/logger';

/** Environment variable names whose values are treated as secrets. */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIAL|COOKIE|SESSION)/i;

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

export const REDACTED = '***';

/** Replaces every known secret value in a text. */
export class Redactor {
  private secrets: string[] = [];

  add(values: Iterable<string>): void {
    for (const v of values) {
      if (v.length >= 4 && !this.secrets.includes(v)) this.secrets.push(v);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.secrets.length;
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }
}

/** A logger that passes every line through the redactor first. */
export function redactingLogger(inner: Logger, redactor: Redactor): Logger {
  return {
    trace: (m) => inner.trace(redactor.redact(m)),
    debug: (m) => inner.debug(redactor.redact(m)),
    info: (m) => inner.info(redactor.redact(m)),
    warn: (m) => inner.warn(redactor.redact(m)),
    error: (m) => inner.error(redactor.redact(m)),
  };
}
