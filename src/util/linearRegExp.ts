// Regular expressions a server supplies (JSON Schema `pattern`, `patternProperties` keys,
// elicitation patterns) run here, on RE2 (re2js, pure JavaScript): matching takes time linear in
// the text, whatever the pattern. JavaScript's own engine backtracks: `^(a|a)*$` on 40 characters
// would hold the event loop for hours. What RE2 cannot express (backreferences, lookaround) is
// never handed to JavaScript's engine instead: the pattern is reported as not checked.
//
// Bundled into dist/ajv.js only (src/ajv.ts), loaded on first use; elsewhere import types only.
// Differences from JavaScript kept on purpose: in RE2 `\s`, `\b` and `.` know ASCII line breaks
// only (`.` stops at \n alone, not at \r, U+2028 or U+2029).
import { RE2JS } from 're2js';

/** What a compiled pattern offers: a search anywhere in the text, as RegExp#test (without state). */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/** A pattern that is valid JavaScript but has a feature RE2 lacks; it is not checked. */
export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`the pattern ${JSON.stringify(shortPattern(pattern))} was not checked: ${reason}`);
    this.name = 'UnsupportedPatternError';
  }
}

/** A pattern shown in a message: long ones are cut (a pattern is a server's text). */
export function shortPattern(pattern: string): string {
  return pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
}

/**
 * The feature of `pattern` RE2 lacks, found by one scan outside character classes:
 * backreferences (`\1`, `\k<name>`), lookahead (`(?=`, `(?!`), lookbehind (`(?<=`, `(?<!`).
 * re2js would read `\k<n>` as the letter k, so these are named here rather than left to it.
 */
export function unsupportedFeature(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && next >= '1' && next <= '9') return `RE2 has no backreferences (\\${next})`;
      if (!inClass && next === 'k' && pattern[i + 2] === '<') return 'RE2 has no backreferences (\\k<…>)';
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(' && pattern[i + 1] === '?') {
      const kind = pattern.slice(i + 2, i + 4);
      if (kind.startsWith('=') || kind.startsWith('!')) return `RE2 has no lookahead (${pattern.slice(i, i + 3)})`;
      if (kind === '<=' || kind === '<!') return `RE2 has no lookbehind (${pattern.slice(i, i + 4)})`;
    }
  }
  return undefined;
}

/** JavaScript RegExp flags as RE2JS flags; 'u' and 'v' need nothing (RE2 reads code points). */
function re2Flags(flags: string): number {
  let result = 0;
  for (const flag of flags) {
    if (flag === 'i') result |= RE2JS.CASE_INSENSITIVE;
    else if (flag === 'm') result |= RE2JS.MULTILINE;
    else if (flag === 's') result |= RE2JS.DOTALL;
    else if (flag !== 'u' && flag !== 'v' && flag !== 'g' && flag !== 'd') throw new SyntaxError(`the regular expression flag ${JSON.stringify(flag)} is not supported`);
  }
  return result;
}

/** Is `pattern` valid JavaScript? Only parsed (construction never matches, so it is linear). */
function javaScriptSyntaxError(pattern: string, flags: string): string | undefined {
  try {
    new RegExp(pattern, flags);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Compiles a JavaScript pattern for RE2. Throws UnsupportedPatternError for a valid pattern RE2
 * cannot run, and SyntaxError for one that is not a valid regular expression at all.
 */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  const engineFlags = re2Flags(flags);
  const jsFlags = flags.replace(/[^imsuv]/g, '');
  const feature = unsupportedFeature(pattern);
  if (feature !== undefined) {
    const syntax = javaScriptSyntaxError(pattern, jsFlags);
    if (syntax !== undefined) throw new SyntaxError(syntax);
    throw new UnsupportedPatternError(pattern, feature);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), engineFlags);
  } catch (err) {
    const syntax = javaScriptSyntaxError(pattern, jsFlags);
    if (syntax !== undefined) throw new SyntaxError(syntax);
    const detail = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    throw new UnsupportedPatternError(pattern, `RE2 cannot run it (${shortPattern(detail)})`);
  }
  const shown = `/${pattern}/${flags}`;
  return { test: (text) => compiled.test(text), toString: () => shown };
}

/** A test that passes everything: what stands for a pattern RE2 cannot run (reported as not checked). */
function uncheckedRegExp(pattern: string, flags: string): LinearRegExp {
  const shown = `/${pattern}/${flags} (not checked)`;
  return { test: () => true, toString: () => shown };
}

/** Ajv's `code.regExp` option: `(pattern, flags) => {test}`, with `code` for standalone output. */
export interface AjvRegExpEngine {
  (pattern: string, flags: string): LinearRegExp;
  code: string;
}

/**
 * The engine for Ajv: every `pattern` and `patternProperties` key compiles with RE2. A pattern
 * RE2 cannot run passes every value (find it with `uncheckedSchemaPatterns` to say so); a pattern
 * that is no regular expression makes the schema fail to compile, as with Ajv's default engine.
 */
export const linearRegExpEngine: AjvRegExpEngine = Object.assign(
  (pattern: string, flags: string): LinearRegExp => {
    try {
      return linearRegExp(pattern, flags);
    } catch (err) {
      if (err instanceof UnsupportedPatternError) return uncheckedRegExp(pattern, flags);
      throw err;
    }
  },
  // Never "new RegExp" (Ajv would emit JavaScript's engine); only used for standalone code.
  { code: 'require("re2js-linear-regexp")' },
);

/** A pattern of a schema that RE2 cannot run: where it is (a JSON Pointer into the schema) and why. */
export interface UncheckedPattern {
  /** JSON Pointer into the schema: ".../pattern" or ".../patternProperties/<key>". */
  schemaPath: string;
  /** The property the pattern is about, as a person reads it ("address.zip", "items[]"), or "the value". */
  field: string;
  pattern: string;
  reason: string;
}

/** Keywords whose values are data, not schemas: a "pattern" inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** A schema nested deeper than this is not searched further (Ajv refuses far less already). */
const MAX_DEPTH = 256;
/** At most this many unchecked patterns are named per schema. */
const MAX_UNCHECKED = 20;

/** The `pattern`s and `patternProperties` keys of a schema that RE2 cannot run. Never throws. */
export function uncheckedSchemaPatterns(schema: unknown, flags = 'u'): UncheckedPattern[] {
  const found: UncheckedPattern[] = [];
  const stack: Array<{ node: unknown; path: string[] }> = [{ node: schema, path: [] }];
  while (stack.length > 0 && found.length < MAX_UNCHECKED) {
    const { node, path } = stack.pop()!;
    if (node === null || typeof node !== 'object' || path.length > MAX_DEPTH) continue;
    const entries: Array<[string, unknown]> = Array.isArray(node) ? node.map((v, i) => [String(i), v]) : Object.entries(node);
    const parentKeyword = path[path.length - 1];
    for (const [key, value] of entries.reverse()) {
      if (DATA_KEYWORDS.has(key) && parentKeyword !== 'properties') continue;
      const here = [...path, key];
      if (key === 'pattern' && typeof value === 'string' && parentKeyword !== 'properties') {
        const reason = unsupportedReason(value, flags);
        if (reason !== undefined) found.push({ schemaPath: pointer(here), field: fieldOf(path), pattern: value, reason });
      }
      if (parentKeyword === 'patternProperties' && !Array.isArray(node)) {
        const reason = unsupportedReason(key, flags);
        if (reason !== undefined) found.push({ schemaPath: pointer(here), field: fieldOf(path.slice(0, -1)), pattern: key, reason });
      }
      stack.push({ node: value, path: here });
    }
  }
  return found.slice(0, MAX_UNCHECKED);
}

function unsupportedReason(pattern: string, flags: string): string | undefined {
  try {
    linearRegExp(pattern, flags);
    return undefined;
  } catch (err) {
    return err instanceof UnsupportedPatternError ? err.reason : undefined;
  }
}

function pointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The data a schema location is about: "properties/a/properties/b" -> "a.b", "items" -> "[]". */
export function fieldOf(schemaPath: readonly string[]): string {
  let field = '';
  for (let i = 0; i < schemaPath.length; i++) {
    const segment = schemaPath[i];
    if ((segment === 'properties' || segment === 'patternProperties') && i + 1 < schemaPath.length) {
      field = field ? `${field}.${schemaPath[i + 1]}` : schemaPath[i + 1];
      i++;
    } else if (segment === 'items' || segment === 'prefixItems' || segment === 'additionalItems') {
      field = `${field}[]`;
    }
  }
  return field || 'the value';
}

/** One line for a person: "the pattern of zip (/properties/zip/pattern) was not checked: RE2 has no lookahead". */
export function describeUnchecked(u: UncheckedPattern): string {
  return `the pattern ${JSON.stringify(shortPattern(u.pattern))} of ${u.field} (${u.schemaPath}) was not checked: ${u.reason}`;
}
