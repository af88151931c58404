// JSON Schema validation for tool arguments, tool results and elicitation forms, with Ajv (the
// editor's and the CLI's). Runs in the extension host, never in a webview: Ajv compiles schemas
// with `new Function`, which a webview's CSP forbids. Ajv is loaded on first use, so activation
// does not pay for it. Patterns run on RE2 (util/linearRegExp.ts): linear time on any text.
import { describeJsonPointer } from '../util/jsonPointer';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { errorMessage } from '../util/errorMessage';
import type { UncheckedPattern } from '../util/linearRegExp';
import { loadAjvBundle } from './ajvBundle';

/** One problem with a value, located by a JSON Pointer into the value ('' = the whole value). */
export interface ValidationIssue {
  path: string;
  message: string;
  keyword?: string;
}

export type SchemaDialect = '2020-12' | 'draft-07';

export type SchemaCheck =
  | {
      kind: 'ok';
      dialect: SchemaDialect;
      validate(value: unknown): ValidationIssue[];
      /** Patterns RE2 cannot run (backreferences, lookaround): values pass them unchecked. */
      unchecked: UncheckedPattern[];
      /** One line per unchecked pattern, for a person. */
      notes: string[];
    }
  /** The schema names a dialect we do not implement; values cannot be checked. */
  | { kind: 'unsupported'; dialect: string; message: string }
  /** The schema itself is not valid JSON Schema (or cannot be compiled). */
  | { kind: 'invalid'; dialect: SchemaDialect; message: string };

export const SUPPORTED_DIALECTS: readonly string[] = ['https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft-07/schema#'];

/** The dialect a schema declares with `$schema` (MCP: 2020-12 when absent). */
export function schemaDialect(schema: unknown): SchemaDialect | { unsupported: string } {
  const declared = schema && typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return { unsupported: JSON.stringify(declared) };
  const normal = declared.trim().replace(/^https?:\/\//, '').replace(/#$/, '');
  if (normal === 'json-schema.org/draft/2020-12/schema') return '2020-12';
  if (normal === 'json-schema.org/draft-07/schema') return 'draft-07';
  return { unsupported: declared };
}

interface AjvLike {
  compile(schema: object): ValidateFunction;
}

interface AjvModules {
  create(dialect: SchemaDialect): AjvLike;
  unchecked(schema: unknown): UncheckedPattern[];
  describe(u: UncheckedPattern): string;
}

let modules: Promise<AjvModules> | undefined;

function loadAjv(): Promise<AjvModules> {
  modules ??= (async () => {
    const { Ajv2020, Ajv07, addFormats, linearRegExpEngine, uncheckedSchemaPatterns, describeUnchecked } = loadAjvBundle();
    return {
      create(dialect) {
        // strict: false — servers' schemas carry keywords Ajv does not know (e.g. "examples" in
        // draft-07 is fine, but also vendor keywords); they must not make validation fail.
        // code.regExp: every pattern on RE2, never on JavaScript's backtracking engine.
        const options = { allErrors: true, strict: false, validateFormats: true, messages: true, code: { regExp: linearRegExpEngine } } as const;
        const ajv = dialect === '2020-12' ? new Ajv2020(options) : new Ajv07(options);
        addFormats(ajv);
        return ajv;
      },
      unchecked: uncheckedSchemaPatterns,
      describe: describeUnchecked,
    };
  })();
  return modules;
}

const MAX_CACHED = 200;
const cache = new Map<string, Promise<SchemaCheck>>();

/** Compiles a schema (cached by its JSON text) into a checker. Never throws. */
export function compileSchema(schema: unknown): Promise<SchemaCheck> {
  let key: string;
  try {
    key = JSON.stringify(schema) ?? 'undefined';
  } catch {
    return Promise.resolve({ kind: 'invalid', dialect: '2020-12', message: 'the schema cannot be serialised' });
  }
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit); // most recently used last
    return hit;
  }
  const compiled = compileUncached(schema);
  cache.set(key, compiled);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
  return compiled;
}

async function compileUncached(schema: unknown): Promise<SchemaCheck> {
  const dialect = schemaDialect(schema);
  if (typeof dialect !== 'string') {
    return {
      kind: 'unsupported',
      dialect: dialect.unsupported,
      message: `the schema declares the dialect ${dialect.unsupported}, which MCP Host does not support (supported: JSON Schema 2020-12, the default, and draft-07)`,
    };
  }
  if (typeof schema === 'boolean') {
    return { kind: 'ok', dialect, unchecked: [], notes: [], validate: (value) => (schema || value === undefined ? [] : [{ path: '', message: 'no value is allowed here' }]) };
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) {
    return { kind: 'invalid', dialect, message: 'the schema is not a JSON object' };
  }
  const ajvModules = await loadAjv();
  // A fresh instance per schema: schemas with the same $id must not collide, and one server's
  // schema cannot add definitions another sees.
  const ajv = ajvModules.create(dialect);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    return { kind: 'invalid', dialect, message: errorMessage(err) };
  }
  const unchecked = ajvModules.unchecked(schema);
  return {
    kind: 'ok',
    dialect,
    unchecked,
    notes: unchecked.map(ajvModules.describe),
    validate(value) {
      if (validate(value)) return [];
      return friendlyIssues(validate.errors ?? []);
    },
  };
}

/** Validates a value; an unusable schema is reported as one issue at the root. */
export async function validateValue(schema: unknown, value: unknown): Promise<ValidationIssue[]> {
  const check = await compileSchema(schema);
  if (check.kind !== 'ok') return [{ path: '', message: `Cannot validate: ${check.message}` }];
  return check.validate(value);
}

/** Ajv errors reworded for a person, each at the path of the field it concerns. */
export function friendlyIssues(errors: readonly ErrorObject[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  // anyOf/oneOf report every branch's failure and then their own; keep it readable.
  const hasBranchSummary = (path: string) => errors.some((e) => e.instancePath === path && (e.keyword === 'anyOf' || e.keyword === 'oneOf'));
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    let path = error.instancePath;
    let message: string;
    switch (error.keyword) {
      case 'required':
        path = `${path}/${escapePointer(String(params.missingProperty))}`;
        message = 'is required';
        break;
      case 'additionalProperties':
        path = `${path}/${escapePointer(String(params.additionalProperty))}`;
        message = 'is not allowed here (not in the schema)';
        break;
      case 'unevaluatedProperties':
        path = `${path}/${escapePointer(String(params.unevaluatedProperty))}`;
        message = 'is not allowed here (not in the schema)';
        break;
      case 'enum': {
        const allowed = Array.isArray(params.allowedValues) ? params.allowedValues.map((v) => JSON.stringify(v)).join(', ') : '';
        message = `must be one of: ${allowed}`;
        break;
      }
      case 'const':
        message = `must be ${JSON.stringify(params.allowedValue)}`;
        break;
      case 'type':
        message = `must be ${article(String(params.type))}`;
        break;
      case 'format':
        message = `must be a valid ${String(params.format)}`;
        break;
      case 'if':
      case 'allOf':
        continue;
      default:
        message = error.message ?? `fails "${error.keyword}"`;
    }
    if ((error.schemaPath.includes('/anyOf/') || error.schemaPath.includes('/oneOf/')) && hasBranchSummary(error.instancePath)) continue;
    if (error.keyword === 'anyOf') message = 'does not match any of the allowed shapes';
    if (error.keyword === 'oneOf') message = 'must match exactly one of the allowed shapes';
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message, keyword: error.keyword });
  }
  return issues;
}

function article(type: string): string {
  const words = type.split(',').map((t) => t.trim());
  const one = (t: string) => (t === 'integer' ? 'an integer' : t === 'object' ? 'an object' : t === 'array' ? 'an array' : t === 'null' ? 'null' : `a ${t}`);
  return words.map(one).join(' or ');
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer as a person reads it: "/edits/0/oldText" -> "edits[0].oldText". */
export function describePath(pointer: string): string {
  return describeJsonPointer(pointer);
}

/** Issues as lines, e.g. "edits[0].oldText is required". */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${describePath(i.path)} ${i.message}`).join('\n');
}
