/**
 * A fast path for validating with zod/mini schemas, derived from the schemas themselves.
 *
 * Why: zod/mini's runtime parser builds a fresh copy of every object and array it validates
 * and allocates a payload per node. On a busy connection (tens of thousands of small results,
 * or a tools/list of thousands of tools) that was most of our client's overhead over a client
 * without validation (see bench/). The checks themselves are a few `typeof`s.
 *
 * How: `fastSafeParse(schema, value)` first runs a predicate compiled (once, on first use)
 * from the schema's definition. The predicate answers "zod accepts this value and would return
 * it unchanged". When it says yes, the value itself is the result; otherwise zod runs as
 * before, and its answer (the data, or the error with its messages) is the result.
 *
 * The contract of a compiled predicate `test`, for values shaped like JSON.parse's output (plain
 * objects with own data properties and no symbol keys, arrays, strings, numbers, booleans,
 * null; undefined, NaN and ±Infinity may appear anywhere and are judged exactly):
 *   test(v) === true  =>  schema.safeParse(v) succeeds, and its data equals v: the same
 *                         prototypes (plain objects and arrays only) and own enumerable string
 *                         keys, recursively.
 * Every value it is used on comes from a transport, which delivers JSON.parse's output. Other
 * values (class instances, null-prototype objects) are refused, so zod handles them.
 * It may say false for values zod accepts (a default to fill in, a construct it does not model);
 * those simply take the zod path. Anything the compiler does not know exactly (refinements,
 * transforms, coercion, pipes, string/number checks, strict or stripping objects, ...) compiles
 * to "false", so a schema edited later can make the fast path slower, never wrong.
 * test/unit/fast-check.test.ts cross-checks the predicates against zod for the MCP schemas.
 *
 * The predicate is generated as JavaScript source (one function per schema, the way zod's own
 * JIT does it for classic objects): straight-line property reads and typeof checks run well
 * even before V8 has optimised them, which matters for a connection's first thousands of
 * messages. The source contains only the schema's keys and string literals, JSON-escaped, never
 * input. Where code generation is not allowed, the predicate is "false" and zod does the work.
 */
import type { ZodSchema } from './zod';

/** The parts of zod's internal schema structure the compiler reads (zod v4 core `_zod`). */
interface ZodInternals {
  readonly _zod: {
    readonly def: ZodDef;
    readonly traits: ReadonlySet<string>;
    readonly values?: ReadonlySet<unknown>;
    readonly optin?: 'optional' | 'defaulted';
  };
}

interface ZodDef {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly coerce?: boolean;
  readonly format?: string;
  readonly shape?: Record<string, ZodInternals>;
  readonly catchall?: ZodInternals;
  readonly element?: ZodInternals;
  readonly options?: readonly ZodInternals[];
  readonly inclusive?: boolean;
  readonly discriminator?: string;
  readonly innerType?: ZodInternals;
  readonly keyType?: ZodInternals;
  readonly valueType?: ZodInternals;
}

type Test = (value: unknown) => boolean;

/**
 * A compiled node. `emit(x, out)` appends statements that `return false` unless the variable
 * named `x` passes; primitives also have `expr(x)`, a boolean expression (used in unions).
 * `exact`: failing also means zod rejects the value (needed to compile unions soundly).
 */
interface Node {
  readonly emit: (x: string, out: string[]) => void;
  /** Objects only: the member checks alone, for a value already known to be a plain object. */
  readonly emitMembers?: (x: string, out: string[]) => void;
  readonly expr?: (x: string) => string;
  readonly exact: boolean;
  /** Passes everything: containers skip it. */
  readonly always?: boolean;
  /** May pass `undefined` (an object then also checks that a required member is present). */
  readonly passesUndefined?: boolean;
}

function primitive(expr: (x: string) => string, exact = true, passesUndefined = false): Node {
  return { expr, emit: (x, out) => out.push(`if (!(${expr(x)})) return false;`), exact, passesUndefined };
}

const NEVER: Node = primitive(() => 'false', false);
const ALWAYS: Node = { expr: () => 'true', emit: () => {}, exact: true, always: true, passesUndefined: true };

const compiledTests = new WeakMap<object, Test>();
const dispatchers = new WeakMap<object, { readonly key: string; readonly cases: ReadonlyMap<string, ZodSchema<unknown>> }>();

/**
 * Declares what the custom check of `schema` does, so the fast path can compile it: when the
 * value's `key` member names an entry of `cases`, the value must also satisfy that schema;
 * otherwise the check passes. Only for checks that do exactly that (and transform nothing).
 */
export function registerDispatchCheck(schema: ZodSchema<unknown>, key: string, cases: ReadonlyMap<string, ZodSchema<unknown>>): void {
  dispatchers.set(schema, { key, cases });
}

export type FastSafeParseResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };

/** `schema.safeParse(value)`, through the compiled fast path when the value allows it. */
export function fastSafeParse<T>(schema: ZodSchema<T>, value: unknown): FastSafeParseResult<T> {
  if (fastTest(schema)(value)) return { success: true, data: value as T };
  return schema.safeParse(value) as FastSafeParseResult<T>;
}

// The two most recently used schemas and their predicates: a connection alternates between the
// JSON-RPC envelope and one result schema, and a pointer compare is cheaper than a WeakMap lookup.
let recentSchema: object | undefined;
let recentTest: Test | undefined;
let olderSchema: object | undefined;
let olderTest: Test | undefined;

/** The compiled predicate of a schema (compiled on first use, then cached). */
export function fastTest(schema: ZodSchema<unknown>): Test {
  if (schema === recentSchema) return recentTest!;
  let test: Test | undefined;
  if (schema === olderSchema) {
    test = olderTest!;
  } else {
    test = compiledTests.get(schema);
    if (test === undefined) {
      test = new Compiler().compileTop(schema as unknown as ZodInternals);
      compiledTests.set(schema, test);
    }
  }
  olderSchema = recentSchema;
  olderTest = recentTest;
  recentSchema = schema;
  recentTest = test;
  return test;
}

/** The source of the predicate generated for a schema (for tests and debugging). */
export function fastTestSource(schema: ZodSchema<unknown>): string {
  return new Compiler().source(schema as unknown as ZodInternals);
}

const str = (s: string): string => JSON.stringify(s);

class Compiler {
  private readonly helpers: string[] = [];
  private readonly externals: unknown[] = [];
  private readonly helperNames = new Map<ZodInternals, string>();
  private readonly inProgress = new Set<ZodInternals>();
  private vars = 0;

  compileTop(schema: ZodInternals): Test {
    const source = this.source(schema);
    try {
      const make = new Function('ext', source) as (ext: readonly unknown[]) => Test;
      return make(this.externals);
    } catch {
      // Code generation is disabled (--disallow-code-generation-from-strings, a CSP): zod only.
      return () => false;
    }
  }

  /**
   * One function with the checks inline (V8 then optimises one function per schema, not one per
   * nested object); only union options become helper functions.
   */
  source(schema: ZodInternals): string {
    const body: string[] = [];
    this.compile(schema).emit('v', body);
    return `'use strict';\n${this.helpers.join('\n')}\nreturn function check(v) {\n${body.join('\n')}\nreturn true;\n};`;
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.vars++}`;
  }

  private external(value: unknown): string {
    this.externals.push(value);
    return `ext[${this.externals.length - 1}]`;
  }

  private compile(schema: ZodInternals): Node {
    if (this.inProgress.has(schema)) return NEVER; // a recursive schema: left to zod
    this.inProgress.add(schema);
    try {
      return this.compileNode(schema);
    } finally {
      this.inProgress.delete(schema);
    }
  }

  /** A boolean expression for a node: its own, or a call of a helper function holding its checks. */
  private exprOf(schema: ZodInternals, node: Node): (x: string) => string {
    if (node.expr) return node.expr;
    let name = this.helperNames.get(schema);
    if (name === undefined) {
      name = `h${this.helpers.length}`;
      this.helperNames.set(schema, name);
      const body: string[] = [];
      node.emit('u', body);
      this.helpers.push(`function ${name}(u) {\n${body.join('\n')}\nreturn true;\n}`);
    }
    const fn = name;
    return (x) => `${fn}(${x})`;
  }

  private compileNode(schema: ZodInternals): Node {
    const zod = schema._zod;
    const def = zod.def;
    if (def.coerce) return NEVER;
    const checks = def.checks ?? [];
    // A schema that is itself a check (z.int() and the other number formats) runs as its own check.
    if (zod.traits.has('$ZodCheck')) {
      if (def.type === 'number' && def.format === 'safeint' && checks.length === 0) return primitive((x) => `Number.isSafeInteger(${x})`);
      return NEVER;
    }
    if (checks.length === 0) return this.compileType(schema, def);
    const dispatch = dispatchers.get(schema);
    if (!dispatch) return NEVER;
    // The registered custom check: a known `key` value selects a schema the value must also pass.
    const base = this.compileType(schema, def);
    let exact = base.exact;
    const cases: Array<[string, Node]> = [];
    for (const [name, caseSchema] of dispatch.cases) {
      const c = this.compile(caseSchema as unknown as ZodInternals);
      exact &&= c.exact;
      cases.push([name, c]);
    }
    return {
      emit: (x, out) => {
        base.emit(x, out);
        out.push(`switch (${x}[${str(dispatch.key)}]) {`);
        for (const [name, c] of cases) {
          out.push(`case ${str(name)}: {`);
          // The base check has just established that x is a plain object.
          if (base.emitMembers && c.emitMembers) c.emitMembers(x, out);
          else c.emit(x, out);
          out.push('break;', '}');
        }
        out.push('}');
      },
      exact,
    };
  }

  private compileType(schema: ZodInternals, def: ZodDef): Node {
    const zod = schema._zod;
    switch (def.type) {
      case 'string':
        return primitive((x) => `typeof ${x} === "string"`);
      case 'number':
        // z.number() refuses NaN and ±Infinity; Number.isFinite is false for non-numbers too.
        return primitive((x) => `Number.isFinite(${x})`);
      case 'boolean':
        return primitive((x) => `typeof ${x} === "boolean"`);
      case 'unknown':
      case 'any':
        return ALWAYS;
      case 'literal':
      case 'enum': {
        const values = zod.values;
        if (!values) return NEVER;
        const list = [...values];
        if (list.length === 1 && (typeof list[0] === 'string' || typeof list[0] === 'boolean' || list[0] === null)) {
          const literal = JSON.stringify(list[0]);
          return primitive((x) => `${x} === ${literal}`);
        }
        const set = this.external(values);
        return primitive((x) => `${set}.has(${x})`, true, values.has(undefined));
      }
      case 'optional': {
        // z.exactOptional() refuses a present `undefined`; a defaulted inner fills it in.
        if (zod.traits.has('$ZodExactOptional') || !def.innerType || def.innerType._zod.optin === 'defaulted') return NEVER;
        const inner = this.compile(def.innerType);
        if (inner.always) return ALWAYS;
        return this.guarded(inner, (x) => `${x} !== undefined`, (x) => `${x} === undefined`, true);
      }
      case 'nullable': {
        if (!def.innerType) return NEVER;
        const inner = this.compile(def.innerType);
        if (inner.always) return ALWAYS;
        return this.guarded(inner, (x) => `${x} !== null`, (x) => `${x} === null`, inner.passesUndefined);
      }
      case 'default': {
        // A missing value is replaced by the default: zod's output differs, so zod does it.
        if (!def.innerType) return NEVER;
        const inner = this.compile(def.innerType);
        return {
          emit: (x, out) => {
            out.push(`if (${x} === undefined) return false;`);
            inner.emit(x, out);
          },
          exact: false,
        };
      }
      case 'array': {
        if (!def.element) return NEVER;
        const element = this.compile(def.element);
        // Not exact: zod copies into a fresh Array, so only a plain array is the same value.
        return {
          emit: (x, out) => {
            // (JSON.parse makes arrays with Array.prototype only.)
            out.push(`if (!Array.isArray(${x})) return false;`);
            if (element.always) return;
            const i = this.fresh('i');
            const e = this.fresh('e');
            out.push(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, `const ${e} = ${x}[${i}];`);
            element.emit(e, out);
            out.push('}');
          },
          exact: false,
        };
      }
      case 'object':
        return this.compileObject(def);
      case 'record':
        return this.compileRecord(def);
      case 'union': {
        // Exclusive (z.xor) and discriminated unions report and choose differently: left to zod.
        if (!def.options || def.options.length === 0 || def.inclusive === false || def.discriminator !== undefined) return NEVER;
        const optionSchemas = def.options;
        const options = optionSchemas.map((o) => this.compile(o));
        const exprs = options.map((o, i) => this.exprOf(optionSchemas[i], o));
        const passesUndefined = options.some((o) => o.passesUndefined);
        if (options.every((o) => o.exact)) return primitive((x) => `(${exprs.map((e) => e(x)).join(' || ')})`, true, passesUndefined);
        // zod returns the first option that accepts. A later option may be trusted only when
        // every earlier one rejects the value: where the compiled test of an earlier option says
        // no without that meaning zod says no, zod is asked about that option.
        const lines: string[] = [];
        options.forEach((option, i) => {
          lines.push(`if (${exprs[i]('u')}) return true;`);
          if (!option.exact) lines.push(`if (${this.external(optionSchemas[i])}.safeParse(u).success) return false;`);
        });
        const name = `h${this.helpers.length}`;
        this.helpers.push(`function ${name}(u) {\n${lines.join('\n')}\nreturn false;\n}`);
        return primitive((x) => `${name}(${x})`, false, passesUndefined);
      }
      default:
        return NEVER;
    }
  }

  /** `optional`/`nullable`: the inner checks run unless `skip(x)`. */
  private guarded(inner: Node, run: (x: string) => string, skip: (x: string) => string, passesUndefined = false): Node {
    const innerExpr = inner.expr;
    return {
      expr: innerExpr ? (x) => `(${skip(x)} || ${innerExpr(x)})` : undefined,
      emit: (x, out) => {
        out.push(`if (${run(x)}) {`);
        inner.emit(x, out);
        out.push('}');
      },
      exact: inner.exact,
      passesUndefined,
    };
  }

  private compileObject(def: ZodDef): Node {
    const shape = def.shape;
    // Only loose objects keep unknown members as they are; strict and stripping ones are left to zod.
    const catchallType = def.catchall?._zod.def.type;
    if (!shape || (catchallType !== 'unknown' && catchallType !== 'any') || Object.getOwnPropertySymbols(shape).length > 0) return NEVER;
    const keys = Object.keys(shape);
    if (keys.includes('__proto__')) return NEVER;
    const fields = keys.map((key) => ({
      key,
      node: this.compile(shape[key]),
    }));
    const emitMembers = (x: string, out: string[]): void => {
      for (const { key, node } of fields) {
        // A member whose schema is not optional-in (not optional, not defaulted) must be present
        // (`in`, as zod tests it), even if its schema passes undefined (z.unknown()). Otherwise
        // the check of its value (undefined when absent) already fails.
        if (shape[key]._zod.optin === undefined && node.passesUndefined) out.push(`if (!(${str(key)} in ${x})) return false;`);
        if (node.always) continue;
        const m = this.fresh('m');
        out.push(`const ${m} = ${x}[${str(key)}];`);
        node.emit(m, out);
      }
    };
    return {
      emit: (x, out) => {
        out.push(plainObjectCheck(x));
        emitMembers(x, out);
      },
      emitMembers,
      // Not exact: a non-plain object fails here yet zod accepts it.
      exact: false,
    };
  }

  private compileRecord(def: ZodDef): Node {
    const keyType = def.keyType;
    // Only z.record(z.string(), ...): every string key is accepted as it is.
    if (!keyType || !def.valueType) return NEVER;
    const keyDef = keyType._zod.def;
    if (keyDef.type !== 'string' || keyDef.coerce || (keyDef.checks?.length ?? 0) > 0 || keyType._zod.traits.has('$ZodCheck')) return NEVER;
    const value = this.compile(def.valueType);
    return {
      emit: (x, out) => {
        // zod requires a plain object (its isPlainObject holds for every JSON object), drops
        // "__proto__", and copies into a fresh {}. Symbol keys, which zod refuses, JSON cannot make.
        out.push(plainObjectCheck(x));
        if (value.always) return;
        const k = this.fresh('k');
        const m = this.fresh('m');
        out.push(`for (const ${k} of Object.keys(${x})) {`, `const ${m} = ${x}[${k}];`);
        value.emit(m, out);
        out.push('}');
      },
      exact: false,
    };
  }
}

/**
 * Whether `__proto__` reads the prototype here: Node's --disable-proto removes that accessor
 * (or makes it throw), and then the checks use the two-call form.
 */
const protoReadable = ((): boolean => {
  try {
    return ({} as { __proto__?: unknown }).__proto__ === Object.prototype;
  } catch {
    return false;
  }
})();

/**
 * `x` is an object zod returns as it is (in a fresh copy equal to it): one with Object.prototype
 * and no own "__proto__" member (zod leaves that out of its copy). For a JSON value, one read
 * of `__proto__` answers both: it is the prototype, unless an own member of that name (which
 * JSON.parse makes as a plain data property, never Object.prototype itself) hides it.
 */
function plainObjectCheck(x: string): string {
  const notPlain = protoReadable
    ? `${x}.__proto__ !== Object.prototype`
    : `Object.getPrototypeOf(${x}) !== Object.prototype || Object.hasOwn(${x}, "__proto__")`;
  return `if (typeof ${x} !== "object" || ${x} === null || ${notPlain}) return false;`;
}
