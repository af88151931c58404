// Custom headers from tool parameters (2026-07-28, transports/streamable-http.mdx "Custom Headers
// from Tool Parameters", server/tools.mdx "x-mcp-header"): a tool's inputSchema may mark
// properties with `x-mcp-header: Name`; a tools/call over Streamable HTTP then carries each
// marked argument as `Mcp-Param-Name: value`. A definition whose annotations break the rules
// is invalid, and the client leaves that tool out of tools/list. Pure functions, no I/O.
import { isRecord } from '../util/isRecord';

/** One annotated property: the header's name part and the chain of `properties` keys to it. */
export interface ParamHeader {
  readonly name: string;
  readonly path: readonly string[];
}

/** RFC 9110 field-name token (1*tchar): visible ASCII without delimiters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
/** Keywords whose values are subschemas that a `properties` chain does not reach. */
const UNREACHABLE_ONE = ['additionalProperties', 'items', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'];
const UNREACHABLE_LIST = ['prefixItems', 'oneOf', 'anyOf', 'allOf'];
const UNREACHABLE_MAP = ['patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * The x-mcp-header annotations of a tool's inputSchema, or why the definition must be rejected.
 * Rules: a non-empty token name, unique regardless of case, on a property of type string,
 * integer or boolean, reached from the root through `properties` keys only.
 */
export function paramHeadersOf(inputSchema: unknown): { headers: ParamHeader[] } | { error: string } {
  const headers: ParamHeader[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const where = (path: readonly string[]) => (path.length ? path.join('.') : 'the schema root');

  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (!isRecord(node)) return;
    if (Object.hasOwn(node, 'x-mcp-header')) {
      const name = node['x-mcp-header'];
      const at = where(path);
      if (!reachable || path.length === 0) problems.push(`x-mcp-header on ${at}, which is not reached through "properties" alone`);
      else if (typeof name !== 'string' || name.length === 0) problems.push(`x-mcp-header of ${at} is empty or not a string`);
      else if (!TOKEN.test(name)) problems.push(`x-mcp-header ${JSON.stringify(name)} of ${at} is not an HTTP header name token`);
      else if (!isPrimitiveType(node.type)) problems.push(`x-mcp-header ${JSON.stringify(name)} is on ${at}, whose type is not string, integer or boolean`);
      else {
        const previous = seen.get(name.toLowerCase());
        if (previous !== undefined) problems.push(`x-mcp-header ${JSON.stringify(name)} is used twice (${previous} and ${at})`);
        else {
          seen.set(name.toLowerCase(), at);
          headers.push({ name, path });
        }
      }
    }
    if (isRecord(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) visit(child, [...path, key], reachable);
    }
    for (const k of UNREACHABLE_ONE) visit(node[k], [...path, k], false);
    for (const k of UNREACHABLE_LIST) if (Array.isArray(node[k])) for (const child of node[k] as unknown[]) visit(child, [...path, k], false);
    for (const k of UNREACHABLE_MAP) if (isRecord(node[k])) for (const child of Object.values(node[k])) visit(child, [...path, k], false);
  };
  visit(inputSchema, [], true);
  return problems.length ? { error: problems.join('; ') } : { headers };
}

/**
 * The Mcp-Param-* headers of one call: each annotated argument present (and not null), as a
 * string (integers in decimal, booleans as true/false), encoded by encodeHeaderValue.
 */
export function paramHeaderValues(headers: readonly ParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, path } of headers) {
    let value: unknown = args;
    for (const key of path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    else continue; // absent, null, or not a primitive: no header
    out[`mcp-param-${name.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return out;
}

/**
 * A header value as the transport text's "Value Encoding" says: printable ASCII without
 * leading or trailing space as it is; anything else, or a value that looks like the sentinel
 * itself, as `=?base64?…?=` of its UTF-8 bytes. The empty string stays empty.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function isPrimitiveType(type: unknown): boolean {
  if (typeof type === 'string') return PRIMITIVE.has(type);
  return Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string' && PRIMITIVE.has(t));
}
