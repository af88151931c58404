// What the form reads from a JSON Schema: $ref and allOf resolved, the one type of a field, its
// choices, placeholder and constraints line.

export type Schema = Record<string, unknown>;

/** The whole schema of the form, which `$ref`s point into. */
let rootSchema: Schema = {};

export function setRootSchema(schema: Schema): void {
  rootSchema = schema;
}

export function getRootSchema(): Schema {
  return rootSchema;
}

export function deref(schema: unknown, depth = 0): Schema {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema === false ? { not: {} } : {};
  let s = schema as Schema;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#') && depth < 20) {
    const target = resolvePointer(rootSchema, s.$ref.slice(1));
    if (target && typeof target === 'object') {
      const { $ref: _ignored, ...rest } = s;
      void _ignored;
      s = { ...deref(target, depth + 1), ...rest };
    }
  }
  // allOf of object schemas: merge their properties and required lists.
  if (Array.isArray(s.allOf) && s.allOf.every((p) => p && typeof p === 'object')) {
    const parts = (s.allOf as unknown[]).map((p) => deref(p, depth + 1));
    if (parts.every((p) => typeOf(p) === 'object' || (!p.type && p.properties))) {
      const merged: Schema = { ...s, type: 'object', properties: {}, required: [] };
      delete merged.allOf;
      for (const p of [s, ...parts]) {
        Object.assign(merged.properties as Schema, (p.properties as Schema) ?? {});
        (merged.required as string[]).push(...((p.required as string[]) ?? []));
      }
      return merged;
    }
  }
  return s;
}

function resolvePointer(doc: unknown, ptr: string): unknown {
  if (ptr === '' || ptr === '/') return doc;
  let cur: unknown = doc;
  for (const raw of ptr.replace(/^\//, '').split('/')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** The single type of a schema, ignoring "null" in a type list; undefined when it is not one type. */
export function typeOf(s: Schema): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) {
    const t = s.type.filter((x) => x !== 'null');
    if (t.length === 1) return String(t[0]);
    return undefined;
  }
  if (s.properties && typeof s.properties === 'object') return 'object';
  if (s.items && typeof s.items === 'object') return 'array';
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    const kinds = new Set(s.enum.map((v) => (v === null ? 'null' : typeof v)));
    kinds.delete('null');
    if (kinds.size === 1) return [...kinds][0];
  }
  return undefined;
}

function nullable(s: Schema): boolean {
  return Array.isArray(s.type) && s.type.includes('null');
}

/** Choices a value can take when the schema lists them (enum, or oneOf/anyOf of consts). */
export function choicesOf(s: Schema): Array<{ value: unknown; label: string; description?: string }> | undefined {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? (s.enumNames as unknown[]) : [];
    return s.enum.map((value, i) => ({ value, label: typeof names[i] === 'string' ? String(names[i]) : display(value) }));
  }
  const alts = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as Schema[] | undefined;
  if (alts && alts.length > 0 && alts.every((a) => a && typeof a === 'object' && 'const' in a)) {
    return alts.map((a) => ({ value: a.const, label: typeof a.title === 'string' ? a.title : display(a.const), description: typeof a.description === 'string' ? a.description : undefined }));
  }
  return undefined;
}

export function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function placeholderFor(s: Schema): string {
  if (Array.isArray(s.examples) && s.examples.length > 0) return `e.g. ${display(s.examples[0])}`;
  if ('default' in s) return `default: ${display(s.default)}`;
  if (typeof s.format === 'string') return s.format;
  return '';
}

export function constraintsOf(s: Schema): string {
  const parts: string[] = [];
  const t = typeOf(s);
  if (t) parts.push(nullable(s) ? `${t} or null` : t);
  if (typeof s.format === 'string') parts.push(s.format);
  if (typeof s.minimum === 'number') parts.push(`≥ ${s.minimum}`);
  if (typeof s.exclusiveMinimum === 'number') parts.push(`> ${s.exclusiveMinimum}`);
  if (typeof s.maximum === 'number') parts.push(`≤ ${s.maximum}`);
  if (typeof s.exclusiveMaximum === 'number') parts.push(`< ${s.exclusiveMaximum}`);
  if (typeof s.minLength === 'number') parts.push(`min length ${s.minLength}`);
  if (typeof s.maxLength === 'number') parts.push(`max length ${s.maxLength}`);
  if (typeof s.pattern === 'string') parts.push(`pattern ${s.pattern}`);
  if (typeof s.minItems === 'number') parts.push(`at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`);
  if (typeof s.maxItems === 'number') parts.push(`at most ${s.maxItems} items`);
  return parts.join(' · ');
}
