// Parsing of WWW-Authenticate (RFC 9110 §11.6.1) just far enough for Bearer challenges
// (RFC 6750 §3, RFC 9728 §5.1). oauth4webapi v3 no longer exports its parser.

export interface BearerChallenge {
  /** RFC 9728 resource_metadata URL, as sent. */
  readonly resourceMetadata?: string;
  /** Scopes from `scope="a b"`; undefined when the parameter is absent. */
  readonly scopes?: readonly string[];
  readonly error?: string;
  readonly errorDescription?: string;
}

interface RawChallenge {
  scheme: string;
  params: Map<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
// token68 standing alone (followed by a comma or the end), as in `Basic dXNlcg==`.
const TOKEN68_ALONE = /^[A-Za-z0-9\-._~+/]+=*\s*(?:,|$)/;

/** Splits a header into challenges; tolerant of odd spacing, never throws. */
export function parseChallenges(header: string | null | undefined): RawChallenge[] {
  const out: RawChallenge[] = [];
  if (!header) return out;
  let rest = header;
  let current: RawChallenge | undefined;
  // Every iteration consumes at least one character, so the loop ends.
  while (rest.length > 0) {
    rest = rest.replace(/^[\s,]+/, '');
    if (rest.length === 0) break;
    const name = TOKEN.exec(rest)?.[0];
    if (!name) {
      rest = rest.slice(1);
      continue;
    }
    const after = rest.slice(name.length);
    const eq = /^\s*=\s*/.exec(after);
    if (current && eq && !/^\s*=\s*=/.test(after)) {
      // auth-param: name = token / quoted-string
      let value = '';
      let tail = after.slice(eq[0].length);
      if (tail.startsWith('"')) {
        let i = 1;
        while (i < tail.length && tail[i] !== '"') {
          if (tail[i] === '\\' && i + 1 < tail.length) i++;
          value += tail[i];
          i++;
        }
        tail = tail.slice(Math.min(i + 1, tail.length));
      } else {
        value = TOKEN.exec(tail)?.[0] ?? '';
        tail = tail.slice(value.length);
      }
      current.params.set(name.toLowerCase(), value);
      rest = tail;
      continue;
    }
    // A new scheme, possibly followed by token68 (which Bearer does not use).
    current = { scheme: name.toLowerCase(), params: new Map() };
    out.push(current);
    rest = after.replace(/^\s+/, '');
    const t68 = TOKEN68_ALONE.exec(rest);
    if (t68) rest = rest.slice(t68[0].length);
  }
  return out;
}

/** The Bearer challenge of a 401/403, or an empty one when the server sent none. */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge {
  const bearer = parseChallenges(header).find((c) => c.scheme === 'bearer');
  if (!bearer) return {};
  const scope = bearer.params.get('scope');
  return {
    resourceMetadata: bearer.params.get('resource_metadata') || undefined,
    scopes: scope === undefined ? undefined : splitScopes(scope),
    error: bearer.params.get('error') || undefined,
    errorDescription: bearer.params.get('error_description') || undefined,
  };
}

export function splitScopes(value: string | undefined): string[] {
  return value ? value.split(/\s+/).filter((s) => s.length > 0) : [];
}
