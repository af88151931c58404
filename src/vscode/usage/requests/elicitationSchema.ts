import { McpError, ErrorCode } from '../../../protocol/errors';
import { loadAjvBundle } from '../../../host/ajvBundle';

/**
 * The fields of an elicitation form. MCP keeps `requestedSchema` flat: an object whose
 * properties are strings (with formats), numbers/integers, booleans, or enums (single or
 * multiple select, with or without titles).
 */
export type ElicitField = StringField | NumberField | BooleanField | EnumField | MultiEnumField;

interface FieldBase {
  name: string;
  /** title, else the property name. */
  label: string;
  description?: string;
  required: boolean;
}

export interface StringField extends FieldBase {
  kind: 'string';
  default?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

export interface NumberField extends FieldBase {
  kind: 'number';
  integer: boolean;
  default?: number;
  minimum?: number;
  maximum?: number;
}

export interface BooleanField extends FieldBase {
  kind: 'boolean';
  default?: boolean;
}

export interface EnumOption {
  value: string;
  title: string;
}

export interface EnumField extends FieldBase {
  kind: 'enum';
  options: EnumOption[];
  default?: string;
}

export interface MultiEnumField extends FieldBase {
  kind: 'multiEnum';
  options: EnumOption[];
  default?: string[];
  minItems?: number;
  maxItems?: number;
}

export type FieldValue = string | number | boolean | string[];

function invalid(why: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid elicitation/create requestedSchema: ${why}`);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function titledOptions(list: unknown, where: string): EnumOption[] {
  if (!Array.isArray(list)) throw invalid(`${where} must be an array`);
  return list.map((o: unknown, i) => {
    const opt = o as { const?: unknown; title?: unknown } | null;
    if (!opt || typeof opt !== 'object' || typeof opt.const !== 'string') throw invalid(`${where}[${i}] needs a string "const"`);
    return { value: opt.const, title: typeof opt.title === 'string' ? opt.title : opt.const };
  });
}

function plainOptions(values: unknown, names: unknown, where: string): EnumOption[] {
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) throw invalid(`${where} must be an array of strings`);
  const titles = Array.isArray(names) ? names : [];
  return (values as string[]).map((v, i) => ({ value: v, title: typeof titles[i] === 'string' ? (titles[i] as string) : v }));
}

/** The fields of a requestedSchema, in property order; an unsupported schema is -32602. */
export function parseRequestedSchema(schema: unknown): ElicitField[] {
  if (!schema || typeof schema !== 'object') throw invalid('it must be an object schema');
  const s = schema as { type?: unknown; properties?: unknown; required?: unknown };
  if (s.type !== undefined && s.type !== 'object') throw invalid('"type" must be "object"');
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  if (typeof properties !== 'object' || Array.isArray(properties)) throw invalid('"properties" must be an object');
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(properties).map(([name, raw]) => {
    if (!raw || typeof raw !== 'object') throw invalid(`property "${name}" is not a schema`);
    const p = raw as Record<string, unknown>;
    const base = { name, label: str(p.title) || name, description: str(p.description), required: required.has(name) };
    const where = `property "${name}"`;
    if (p.type === 'array') {
      const items = (p.items ?? {}) as Record<string, unknown>;
      const options = items.anyOf !== undefined ? titledOptions(items.anyOf, `${where}.items.anyOf`) : items.oneOf !== undefined ? titledOptions(items.oneOf, `${where}.items.oneOf`) : plainOptions(items.enum, undefined, `${where}.items.enum`);
      const def = Array.isArray(p.default) ? p.default.filter((d): d is string => typeof d === 'string') : undefined;
      return { ...base, kind: 'multiEnum', options, default: def, minItems: num(p.minItems), maxItems: num(p.maxItems) } satisfies MultiEnumField;
    }
    if (p.type === 'string' && (p.oneOf !== undefined || p.anyOf !== undefined)) {
      return { ...base, kind: 'enum', options: titledOptions(p.oneOf ?? p.anyOf, `${where}.oneOf`), default: str(p.default) } satisfies EnumField;
    }
    if ((p.type === 'string' || p.type === undefined) && p.enum !== undefined) {
      return { ...base, kind: 'enum', options: plainOptions(p.enum, p.enumNames, `${where}.enum`), default: str(p.default) } satisfies EnumField;
    }
    switch (p.type) {
      case 'string':
        return {
          ...base,
          kind: 'string',
          default: str(p.default),
          minLength: num(p.minLength),
          maxLength: num(p.maxLength),
          pattern: str(p.pattern),
          format: str(p.format),
        } satisfies StringField;
      case 'number':
      case 'integer':
        return { ...base, kind: 'number', integer: p.type === 'integer', default: num(p.default), minimum: num(p.minimum), maximum: num(p.maximum) } satisfies NumberField;
      case 'boolean':
        return { ...base, kind: 'boolean', default: typeof p.default === 'boolean' ? p.default : undefined } satisfies BooleanField;
      default:
        throw invalid(`${where} has type ${JSON.stringify(p.type)}; elicitation forms hold only strings, numbers, integers, booleans and enums`);
    }
  });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * Does `text` match the server's pattern? Run on RE2 (linear time, whatever the pattern). A pattern
 * RE2 cannot run (backreferences, lookaround) or that is no regular expression is not held
 * against the person: the value passes, unchecked, and the server checks it again.
 */
export function matchesPattern(pattern: string, text: string): boolean {
  try {
    return loadAjvBundle().linearRegExp(pattern, 'u').test(text);
  } catch {
    return true;
  }
}

/** Checks typed text for a string or number field: the value, or why it is not acceptable. Empty = absent. */
export function parseTyped(field: StringField | NumberField, text: string): { value?: string | number; error?: string } {
  if (text === '') return field.required ? { error: `${field.label} is required.` } : {};
  if (field.kind === 'number') {
    const trimmed = text.trim();
    const n = Number(trimmed);
    if (trimmed === '' || !Number.isFinite(n)) return { error: `Enter a number.` };
    if (field.integer && !Number.isInteger(n)) return { error: 'Enter a whole number.' };
    if (field.minimum !== undefined && n < field.minimum) return { error: `At least ${field.minimum}.` };
    if (field.maximum !== undefined && n > field.maximum) return { error: `At most ${field.maximum}.` };
    return { value: n };
  }
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength) return { error: `At least ${field.minLength} characters.` };
  if (field.maxLength !== undefined && length > field.maxLength) return { error: `At most ${field.maxLength} characters.` };
  if (field.pattern !== undefined && !matchesPattern(field.pattern, text)) return { error: `Must match the pattern ${field.pattern}.` };
  switch (field.format) {
    case 'email':
      if (!EMAIL.test(text)) return { error: 'Enter an email address, like name@example.com.' };
      break;
    case 'uri':
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text)) return { error: 'Enter a URI, like https://example.com/.' };
      break;
    case 'date':
      if (!DATE.test(text)) return { error: 'Enter a date as YYYY-MM-DD.' };
      break;
    case 'date-time':
      if (!DATE_TIME.test(text)) return { error: 'Enter a date and time as YYYY-MM-DDTHH:MM:SSZ (or with an offset like +02:00).' };
      break;
  }
  return { value: text };
}

/** The value every field starts with: its default, if it has one. */
export function initialValues(fields: readonly ElicitField[]): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const f of fields) {
    if (f.default === undefined) continue;
    if (f.kind === 'enum' && !f.options.some((o) => o.value === f.default)) continue;
    if (f.kind === 'multiEnum') {
      values[f.name] = f.default.filter((d) => f.options.some((o) => o.value === d));
      continue;
    }
    values[f.name] = f.default;
  }
  return values;
}

/** What is wrong with the values as a whole (a required field left empty, a selection count). */
export function missingOrInvalid(fields: readonly ElicitField[], values: Record<string, FieldValue>): string[] {
  const problems: string[] = [];
  for (const f of fields) {
    const v = values[f.name];
    if (v === undefined) {
      if (f.required) problems.push(`${f.label} is required`);
      continue;
    }
    if (f.kind === 'multiEnum' && Array.isArray(v)) {
      if (f.minItems !== undefined && v.length < f.minItems) problems.push(`${f.label}: choose at least ${f.minItems}`);
      if (f.maxItems !== undefined && v.length > f.maxItems) problems.push(`${f.label}: choose at most ${f.maxItems}`);
    }
  }
  return problems;
}

/** A value as a person reads it. */
export function displayValue(field: ElicitField, value: FieldValue | undefined): string {
  if (value === undefined) return '(empty)';
  if (field.kind === 'enum') return field.options.find((o) => o.value === value)?.title ?? String(value);
  if (field.kind === 'multiEnum' && Array.isArray(value)) {
    return value.length ? value.map((v) => field.options.find((o) => o.value === v)?.title ?? v).join(', ') : '(none)';
  }
  if (field.kind === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}
