// Kept apart from the HTTP transports so the host can recognise their errors without loading
// them (they live in the lazily loaded remote bundle).
import { TransportError } from './transport';

/** Marks the class across bundle copies (the remote bundle has its own): see Symbol.hasInstance below. */
const BRAND = Symbol.for('mcp-host.HttpTransportError');

/**
 * An HTTP transport failure. `code` is a Node errno code for network failures ('ECONNREFUSED',
 * 'ENOTFOUND', ...), `HTTP_<status>` for an HTTP error status, or 'ECLOSED' / 'EPROTO'.
 * `url` is log-safe (no query string, no user info). The message never holds a header value.
 */
export class HttpTransportError extends TransportError {
  readonly status?: number;
  readonly url: string;
  /** The message without the leading label (for close reasons, which are shown after the label). */
  readonly detail: string;
  constructor(detail: string, options: { code: string; url: string; status?: number; label: string; cause?: unknown }) {
    super(`${options.label}: ${detail}`, options.code, { label: options.label, cause: options.cause });
    this.name = 'HttpTransportError';
    this.status = options.status;
    this.url = options.url;
    this.detail = detail;
  }

  /** `instanceof` that holds for an instance made by the remote bundle's copy of this class too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  get [BRAND](): boolean {
    return true;
  }
}
