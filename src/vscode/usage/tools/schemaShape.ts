// What an input schema looks like to the argument UI: "flat" schemas (an object whose properties are
// strings, numbers, integers, booleans or enums) are asked field by field in quick inputs; anything
// else (nested objects, arrays, compositions, references) opens the webview form.

export type FlatKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

export interface FlatField {
  name: string;
  schema: Record<string, unknown>;
  kind: FlatKind;
  required: boolean;
  /** Also accepts null (type ["string", "null"]). */
  nullable: boolean;
  choices?: unknown[];
}

const COMPOSITION = ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', '$dynamicRef'];

/** The fields of a flat object schema, in schema order; undefined when the schema is not flat. */
export function flatFields(schema: Record<string, unknown>): FlatField[] | undefined {
  if (schema.type !== undefined && schema.type !== 'object') return undefined;
  if (COMPOSITION.some((k) => k in schema)) return undefined;
  if (schema.patternProperties || schema.dependentSchemas || schema.dependentRequired || schema.dependencies) return undefined;
  const properties = schema.properties;
  if (properties !== undefined && (typeof properties !== 'object' || properties === null || Array.isArray(properties))) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const fields: FlatField[] = [];
  for (const [name, raw] of Object.entries((properties ?? {}) as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
    const prop = raw as Record<string, unknown>;
    if (COMPOSITION.some((k) => k in prop)) return undefined;
    let types: unknown[] = Array.isArray(prop.type) ? prop.type : prop.type === undefined ? [] : [prop.type];
    const nullable = types.includes('null');
    types = types.filter((t) => t !== 'null');
    if (Array.isArray(prop.enum)) {
      if (prop.enum.length === 0 || prop.enum.some((v) => v !== null && typeof v === 'object')) return undefined;
      fields.push({ name, schema: prop, kind: 'enum', required: required.has(name), nullable, choices: prop.enum });
      continue;
    }
    if (types.length !== 1) return undefined;
    const t = types[0];
    if (t !== 'string' && t !== 'number' && t !== 'integer' && t !== 'boolean') return undefined;
    fields.push({ name, schema: prop, kind: t, required: required.has(name), nullable });
  }
  // Required properties that the schema does not describe cannot be asked for one by one.
  for (const r of required) if (!fields.some((f) => f.name === r)) return undefined;
  return fields;
}

/** The subschema of one field, carrying the root's dialect, for validating that field alone. */
export function fieldSchema(root: Record<string, unknown>, field: FlatField): Record<string, unknown> {
  return root.$schema === undefined ? field.schema : { $schema: root.$schema, ...field.schema };
}

export function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A hint for an empty input: the first example, else the default. */
export function placeholder(schema: Record<string, unknown>): string | undefined {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return `e.g. ${display(schema.examples[0])}`;
  if ('default' in schema) return `default: ${display(schema.default)}`;
  return undefined;
}
