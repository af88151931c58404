// Is a tool's schema valid JSON Schema for its dialect? Checked with Ajv against the dialect's
// meta-schema, then compiled (which finds what a meta-schema cannot, such as a $ref to nowhere).
// Ajv is loaded on first use from its own bundle (dist/ajv.js, see LAZY_PARTS in esbuild.mjs), so
// the extension's bundle does not carry it. Patterns compile on RE2 (util/linearRegExp.ts).
import type { ErrorObject } from 'ajv';
import { loadAjvBundle } from '../ajvBundle';

/** The dialects checked here. MCP: a schema without `$schema` is 2020-12. */
export type Dialect = '2020-12' | '2019-09' | 'draft-07';

export const DEFAULT_DIALECT: Dialect = '2020-12';

export const DIALECT_URIS: Readonly<Record<Dialect, string>> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
};

export type SchemaVerdict =
  /** `unchecked`: patterns RE2 cannot run (a client with a linear-time engine skips them), one line each. */
  | { kind: 'valid'; dialect: Dialect; unchecked?: string[] }
  | { kind: 'invalid'; dialect: Dialect; problems: string[] }
  /** `$schema` names a dialect not checked here: clients may refuse the tool. */
  | { kind: 'unknown-dialect'; declared: string };

export interface SchemaValidator {
  check(schema: unknown): SchemaVerdict;
}

/** The dialect a schema declares (http or https, with or without the trailing '#'). */
export function declaredDialect(schema: unknown): Dialect | { unknown: string } {
  const declared = schema !== null && typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  if (declared === undefined) return DEFAULT_DIALECT;
  if (typeof declared !== 'string') return { unknown: JSON.stringify(declared) };
  const normal = declared.trim().replace(/^https?:\/\//, '').replace(/#$/, '');
  for (const [dialect, uri] of Object.entries(DIALECT_URIS) as Array<[Dialect, string]>) {
    if (uri.replace(/^https?:\/\//, '').replace(/#$/, '') === normal) return dialect;
  }
  return { unknown: declared };
}

interface AjvInstance {
  validateSchema(schema: object): boolean | Promise<unknown>;
  compile(schema: object): unknown;
  removeSchema(schema: object): unknown;
  errors?: ErrorObject[] | null;
}

/** At most this many problems are named per schema: the first ones say what to fix. */
const MAX_PROBLEMS = 3;

/** Ajv's errors as short lines, one per place in the schema (anyOf/oneOf repeat themselves). */
export function describeAjvErrors(errors: readonly ErrorObject[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const error of errors) {
    const where = error.instancePath || '(root)';
    if (seen.has(where)) continue;
    seen.add(where);
    const allowed = error.keyword === 'enum' && Array.isArray((error.params as { allowedValues?: unknown }).allowedValues) ? ` (${((error.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')})` : '';
    lines.push(`${where} ${error.message ?? error.keyword}${allowed}`);
  }
  return lines.slice(0, MAX_PROBLEMS);
}

/** A validator over Ajv instances made once per dialect (made by `create`). */
export function validatorFrom(create: (dialect: Dialect) => AjvInstance, uncheckedPatterns: (schema: object) => string[] = () => []): SchemaValidator {
  const instances = new Map<Dialect, AjvInstance>();
  const ajvFor = (dialect: Dialect) => {
    let ajv = instances.get(dialect);
    if (!ajv) {
      ajv = create(dialect);
      instances.set(dialect, ajv);
    }
    return ajv;
  };
  return {
    check(schema) {
      const dialect = declaredDialect(schema);
      if (typeof dialect !== 'string') return { kind: 'unknown-dialect', declared: dialect.unknown };
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { kind: 'invalid', dialect, problems: ['(root) must be an object'] };
      // The dialect is already chosen: `$schema` goes, so an https spelling of a draft-07 URI works.
      const { $schema: _declared, ...body } = schema as Record<string, unknown>;
      const ajv = ajvFor(dialect);
      if (ajv.validateSchema(body) !== true) return { kind: 'invalid', dialect, problems: describeAjvErrors(ajv.errors ?? []) };
      try {
        ajv.compile(body);
      } catch (err) {
        return { kind: 'invalid', dialect, problems: [err instanceof Error ? err.message : String(err)] };
      } finally {
        // Two tools may use the same $id; each schema is checked on its own.
        try {
          ajv.removeSchema(body);
        } catch {
          // nothing was added
        }
      }
      const unchecked = uncheckedPatterns(body);
      return unchecked.length > 0 ? { kind: 'valid', dialect, unchecked } : { kind: 'valid', dialect };
    },
  };
}

let loaded: SchemaValidator | undefined;

/** The validator, with Ajv loaded on first use. */
export function loadSchemaValidator(): SchemaValidator {
  if (loaded) return loaded;
  const { Ajv2020, Ajv2019, Ajv07, addFormats, linearRegExpEngine, uncheckedSchemaPatterns, describeUnchecked } = loadAjvBundle();
  loaded = validatorFrom(
    (dialect) => {
      // strict: false: vendor keywords are allowed by every dialect; logger: false: nothing on stdout;
      // code.regExp: patterns on RE2, never on JavaScript's backtracking engine.
      const options = { allErrors: true, strict: false, validateFormats: true, logger: false, code: { regExp: linearRegExpEngine } } as const;
      const ajv = dialect === '2020-12' ? new Ajv2020(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv07(options);
      addFormats(ajv);
      return ajv as unknown as AjvInstance;
    },
    (schema) => uncheckedSchemaPatterns(schema).map(describeUnchecked),
  );
  return loaded;
}
