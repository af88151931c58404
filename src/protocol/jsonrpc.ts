import * as z from './zod';
import { fastSafeParse, fastTest } from './fast-check';

let resultResponseTest: ((value: unknown) => boolean) | undefined;

/** JSON-RPC 2.0 as MCP uses it: ids are strings or integers, params and results are objects. */
export const RequestIdSchema = z.union([z.string(), z.int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

const ParamsSchema = z.record(z.string(), z.unknown());

export const JsonRpcRequestSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  method: z.string(),
  params: z.optional(ParamsSchema),
});

export const JsonRpcNotificationSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.optional(ParamsSchema),
});

export const JsonRpcResultResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  result: ParamsSchema,
});

export const JsonRpcErrorObjectSchema = z.looseObject({
  code: z.int(),
  message: z.string(),
  data: z.optional(z.unknown()),
});

export const JsonRpcErrorResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  // An error about a request that could not be parsed has no (or a null) id.
  id: z.optional(z.nullable(RequestIdSchema)),
  error: JsonRpcErrorObjectSchema,
});

export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;
export type JsonRpcResultResponse = z.infer<typeof JsonRpcResultResponseSchema>;
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'result'; message: JsonRpcResultResponse }
  | { kind: 'error'; message: JsonRpcErrorResponse }
  | { kind: 'invalid'; reason: string; id?: RequestId };

/**
 * Sorts one parsed JSON value into the four JSON-RPC kinds and validates it with
 * the matching schema. Never throws: anything else comes back as `invalid`.
 * (Performance: validation goes through fastSafeParse, which returns a valid message
 * itself instead of zod's copy; invalid ones still get zod's errors.)
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', reason: `expected a JSON object, got ${describeJsonType(value)}` };
  }
  const candidate = value as Record<string, unknown>;
  const idOrUndefined = pickId(candidate.id);
  if ('method' in candidate) {
    const isRequest = 'id' in candidate;
    const schema = isRequest ? JsonRpcRequestSchema : JsonRpcNotificationSchema;
    const parsed = fastSafeParse(schema, value);
    if (!parsed.success) {
      return { kind: 'invalid', reason: `invalid ${isRequest ? 'request' : 'notification'}: ${formatZodError(parsed.error)}`, id: idOrUndefined };
    }
    return isRequest
      ? { kind: 'request', message: parsed.data as JsonRpcRequest }
      : { kind: 'notification', message: parsed.data as JsonRpcNotification };
  }
  if ('result' in candidate) {
    // The common case, an answer, through its compiled check directly (no result objects).
    if ((resultResponseTest ??= fastTest(JsonRpcResultResponseSchema))(value)) return { kind: 'result', message: value as JsonRpcResultResponse };
    const parsed = JsonRpcResultResponseSchema.safeParse(value);
    if (!parsed.success) return { kind: 'invalid', reason: `invalid response: ${formatZodError(parsed.error)}`, id: idOrUndefined };
    return { kind: 'result', message: parsed.data };
  }
  if ('error' in candidate) {
    const parsed = fastSafeParse(JsonRpcErrorResponseSchema, value);
    if (!parsed.success) return { kind: 'invalid', reason: `invalid error response: ${formatZodError(parsed.error)}`, id: idOrUndefined };
    return { kind: 'error', message: parsed.data };
  }
  return { kind: 'invalid', reason: 'not a JSON-RPC message (no method, result or error member)', id: idOrUndefined };
}

/**
 * True when classifyMessage(value) would be `{ kind: 'result', message: value }`: an object with
 * `result` and no `method`, accepted by the compiled JsonRpcResultResponseSchema check.
 */
export function isResultResponse(value: unknown): value is JsonRpcResultResponse {
  return (
    typeof value === 'object' &&
    value !== null &&
    !('method' in value) &&
    'result' in value &&
    (resultResponseTest ??= fastTest(JsonRpcResultResponseSchema))(value)
  );
}

function pickId(id: unknown): RequestId | undefined {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : undefined;
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A compact, single-line rendering of zod issues: `path: message; path: message`. */
export function formatZodError(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }, maxIssues = 3): string {
  const parts = error.issues.slice(0, maxIssues).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${where}: ${issue.message}`;
  });
  if (error.issues.length > maxIssues) parts.push(`… ${error.issues.length - maxIssues} more`);
  return parts.join('; ');
}

/** A short excerpt of a value for logs, never the whole of a huge message. */
export function excerpt(value: unknown, max = 200): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
