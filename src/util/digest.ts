import { createHash } from 'node:crypto';

/**
 * A SHA-256 digest of `text` in base64url, cut to `length` characters: a key that stands for a
 * text which may hold a credential (a URL's query or path), never the text itself.
 */
export function textDigest(text: string, length = 43): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

/** The characters of an endpoint key's digest that stores outliving the process keep (192 bits). */
export const ENDPOINT_DIGEST_LENGTH = 32;
