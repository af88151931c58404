// A server's address as a person sees it (logs, tooltips, traces, the doctor, the report, errors).
// Variable values in a `url` are secrets (an `${env:}` or `${input:}` may fill in a key, in the
// query or in the path), and literal query values often are (`?key=`, `?sig=`): every place that
// shows an address shows origin and path, with query names but not their values, no user:password
// and no fragment. From a config entry, the url is shown as written, with its `${…}` references
// and never the values they stand for.

/** Stands for a query value that is not shown. */
export const HIDDEN_VALUE = '…';

/** A resolved URL (what was connected to): origin + path + `?name=…`, nothing else. */
export function displayUrl(url: string | URL): string {
  let parsed: URL;
  if (typeof url === 'string') {
    if (!URL.canParse(url)) return displayUrlText(url, false);
    parsed = new URL(url);
  } else {
    parsed = url;
  }
  const origin = parsed.origin !== 'null' ? parsed.origin : `${parsed.protocol}//${parsed.host}`;
  return origin + parsed.pathname + shownQuery(parsed.search.slice(1), false);
}

/**
 * The `url` of a config entry, before its variables are filled in: `${env:K}` and `${input:k}`
 * stay as written (in the path and as a whole query value); literal query values are hidden;
 * user:password and the fragment go.
 */
export function displayConfigUrl(template: string): string {
  return displayUrlText(template, true);
}

/** By hand, not with URL: a template need not parse, and URL would percent-encode its `${…}`. */
function displayUrlText(text: string, keepVariables: boolean): string {
  const hash = text.indexOf('#');
  const withoutFragment = hash >= 0 ? text.slice(0, hash) : text;
  const question = withoutFragment.indexOf('?');
  const base = question >= 0 ? withoutFragment.slice(0, question) : withoutFragment;
  const query = question >= 0 ? withoutFragment.slice(question + 1) : '';
  return withoutUserInfo(base) + shownQuery(query, keepVariables);
}

function withoutUserInfo(base: string): string {
  const scheme = base.indexOf('://');
  const authorityStart = scheme >= 0 ? scheme + 3 : 0;
  const slash = base.indexOf('/', authorityStart);
  const authorityEnd = slash >= 0 ? slash : base.length;
  const at = base.lastIndexOf('@', authorityEnd - 1);
  return at >= authorityStart ? base.slice(0, authorityStart) + base.slice(at + 1) : base;
}

/** `?a=…&b=…`: names kept, values hidden (a config's whole-value `${…}` kept when asked). A bare `?word` may be the key itself. */
function shownQuery(query: string, keepVariables: boolean): string {
  if (query === '') return '';
  const parts = query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return HIDDEN_VALUE;
      const value = part.slice(eq + 1);
      return `${part.slice(0, eq)}=${keepVariables && isVariableReference(value) ? value : HIDDEN_VALUE}`;
    });
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** `${env:NAME}`, `${input:id}`, … and nothing around it. */
function isVariableReference(value: string): boolean {
  return value.startsWith('${') && value.endsWith('}') && value.indexOf('}') === value.length - 1;
}
