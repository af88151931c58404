import { test, describe } from 'node:test';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import * as z from '../../src/protocol/zod';
import type { ZodSchema } from '../../src/protocol/zod';
import { fastSafeParse, fastTest, fastTestSource } from '../../src/protocol/fast-check';
import * as schemas from '../../src/protocol/schemas';
import * as jsonrpc from '../../src/protocol/jsonrpc';

/**
 * The fast path's contract: when the compiled predicate accepts a value, zod accepts it too and
 * returns an equal value. Checked here on valid MCP messages and on many mutations of them.
 */

const valid: Array<[string, ZodSchema<unknown>, string[]]> = [
  [
    'JsonRpcResultResponse',
    jsonrpc.JsonRpcResultResponseSchema,
    ['{"jsonrpc":"2.0","id":1,"result":{}}', '{"jsonrpc":"2.0","id":"a","result":{"x":[1,{"y":null}]},"extra":1}'],
  ],
  ['JsonRpcErrorResponse', jsonrpc.JsonRpcErrorResponseSchema, ['{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no","data":{"a":1}}}']],
  ['JsonRpcRequest', jsonrpc.JsonRpcRequestSchema, ['{"jsonrpc":"2.0","id":7,"method":"ping"}', '{"jsonrpc":"2.0","id":"x","method":"roots/list","params":{"_meta":{}}}']],
  ['JsonRpcNotification', jsonrpc.JsonRpcNotificationSchema, ['{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}']],
  [
    'InitializeResult',
    schemas.InitializeResultSchema,
    [
      '{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true},"logging":{},"experimental":{"x":1}},"serverInfo":{"name":"s","version":"1","title":"S"},"instructions":"hi"}',
    ],
  ],
  [
    'CallToolResult',
    schemas.CallToolResultSchema,
    [
      '{"content":[{"type":"text","text":"hello"}]}',
      '{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5}},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"audio","data":"AA","mimeType":"audio/wav"},{"type":"resource_link","uri":"file:///a","name":"a","size":3},{"type":"resource","resource":{"uri":"file:///b","text":"t"}},{"type":"resource","resource":{"uri":"file:///c","blob":"AA=="}},{"type":"future-kind","x":1}],"structuredContent":{"n":1},"isError":false,"_meta":{"k":"v"}}',
      '{"content":[]}',
      '{}',
    ],
  ],
  [
    'ListToolsResult',
    schemas.ListToolsResultSchema,
    [
      '{"tools":[{"name":"echo","description":"d","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"annotations":{"readOnlyHint":true},"icons":[{"src":"a.png"}]}],"nextCursor":"c2"}',
    ],
  ],
  ['ListResourcesResult', schemas.ListResourcesResultSchema, ['{"resources":[{"uri":"file:///a","name":"a","mimeType":"text/plain","size":1}]}']],
  ['ListResourceTemplatesResult', schemas.ListResourceTemplatesResultSchema, ['{"resourceTemplates":[{"uriTemplate":"file:///{x}","name":"t"}]}']],
  ['ListPromptsResult', schemas.ListPromptsResultSchema, ['{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}']],
  ['ReadResourceResult', schemas.ReadResourceResultSchema, ['{"contents":[{"uri":"file:///a","text":"x"},{"uri":"file:///b","blob":"AA=="}]}']],
  ['GetPromptResult', schemas.GetPromptResultSchema, ['{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}']],
  ['CompleteResult', schemas.CompleteResultSchema, ['{"completion":{"values":["a","b"],"total":2,"hasMore":false}}']],
  ['EmptyResult', schemas.EmptyResultSchema, ['{}', '{"_meta":{"a":1}}']],
  ['LoggingMessageParams', schemas.LoggingMessageParamsSchema, ['{"level":"info","logger":"l","data":{"x":1}}']],
];

/**
 * Values that probe every kind of check: types, NaN/Infinity, non-integers, own __proto__, arrays, ...
 * The contract covers values shaped like JSON.parse's output, which is what transports deliver;
 * a null-prototype object and a Date are outside it too, but are refused (so zod decides).
 * Symbol-keyed members are left out: JSON cannot make them.
 */
const probes: unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  'text',
  '2.0',
  'image',
  'resource',
  'constructor',
  'toString',
  true,
  false,
  [],
  ['x'],
  [1],
  {},
  { type: 'text' },
  { uri: 'u', text: 't' },
  JSON.parse('{"__proto__":{"x":1}}'),
  Object.assign(Object.create(null), { a: 1 }),
  new Date(0),
];

/** Every path into a JSON value, as key lists. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function withAt(value: unknown, path: Array<string | number>, replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  const [head, ...rest] = path;
  if (rest.length === 0 && remove) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete copy[head];
  } else {
    copy[head] = withAt(copy[head], rest, replacement, remove);
  }
  return copy;
}

function checkContract(name: string, schema: ZodSchema<unknown>, value: unknown): boolean {
  const fast = fastTest(schema)(value);
  const slow = schema.safeParse(value);
  if (fast) {
    assert.ok(slow.success, `${name}: the fast path accepted what zod rejects: ${show(value)}`);
    assert.ok(sameData(slow.data, value), `${name}: zod returns something else than the accepted value: ${show(value)}`);
  }
  const viaFast = fastSafeParse(schema, value);
  assert.equal(viaFast.success, slow.success, `${name}: fastSafeParse disagrees with zod on ${show(value)}`);
  return fast;
}

/**
 * Deep equality over what the contract promises: prototypes, and own enumerable string keys
 * (zod's copy of a loose object leaves out symbol-keyed members, which JSON cannot contain).
 */
function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameData((a as any)[k], (b as any)[k]));
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

describe('fast-check', () => {
  test('the fast path takes valid MCP messages (so they skip zod), and zod agrees', () => {
    for (const [name, schema, samples] of valid) {
      for (const sample of samples) {
        const value = JSON.parse(sample);
        const result = checkContract(name, schema, value);
        const needsDefault = name === 'CallToolResult' && sample === '{}';
        assert.equal(result, !needsDefault, `${name}: expected the fast path to ${needsDefault ? 'leave to zod' : 'accept'} ${sample}`);
      }
    }
  });

  test('on every mutation of those messages, it accepts nothing zod would not return unchanged', () => {
    let accepted = 0;
    let rejected = 0;
    for (const [name, schema, samples] of valid) {
      for (const sample of samples) {
        const value = JSON.parse(sample);
        for (const path of paths(value)) {
          for (const probe of probes) {
            if (checkContract(name, schema, withAt(value, path, probe))) accepted++;
            else rejected++;
          }
          if (path.length > 0 && checkContract(name, schema, withAt(value, path, undefined, true))) accepted++;
          else rejected++;
        }
      }
    }
    assert.ok(accepted > 100 && rejected > 100, `accepted ${accepted}, rejected ${rejected}`);
  });

  test('objects JSON.parse cannot make are left to zod', () => {
    class Result {
      content = [];
    }
    const outside: unknown[] = [
      Object.assign(Object.create(null), { content: [] }),
      new Result(),
      { content: Object.assign(Object.create(null), { length: 0 }) },
      { content: [{ ...Object.create({ inherited: 1 }), type: 'text', text: 'x', __proto__: Object.create(null) }] },
    ];
    for (const value of outside) assert.equal(fastTest(schemas.CallToolResultSchema)(value), false, show(value));
  });

  test('under node --disable-proto, the checks still work (without reading __proto__)', () => {
    const fastCheck = JSON.stringify(path.resolve(__dirname, '../../src/protocol/fast-check.js'));
    const schemasModule = JSON.stringify(path.resolve(__dirname, '../../src/protocol/schemas.js'));
    const script = `
      const { fastTest } = require(${fastCheck});
      const { CallToolResultSchema } = require(${schemasModule});
      const test = fastTest(CallToolResultSchema);
      console.log(JSON.stringify([
        test(JSON.parse('{"content":[{"type":"text","text":"hi"}]}')),
        test(JSON.parse('{"content":[{"type":"text","text":"hi","__proto__":{"x":1}}]}')),
      ]));
    `;
    for (const mode of ['throw', 'delete']) {
      const run = spawnSync(process.execPath, [`--disable-proto=${mode}`, '-e', script], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), [true, false], mode);
    }
  });

  test('missing defaults go through zod, which fills them in', () => {
    const parsed = fastSafeParse(schemas.CallToolResultSchema, {});
    assert.ok(parsed.success);
    assert.deepEqual(parsed.data, { content: [] });
  });

  test('invalid values get zod’s own errors', () => {
    const parsed = fastSafeParse(schemas.CallToolResultSchema, { content: [{ type: 'text' }] });
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.success ? [] : parsed.error.issues.map((i) => i.path), [['content', 0, 'text']]);
  });

  test('a content block typed "constructor" or "toString" is an unknown type, not a crash', () => {
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const value = { content: [{ type, x: 1 }] };
      assert.equal(schemas.CallToolResultSchema.safeParse(value).success, true, type);
      assert.equal(fastSafeParse(schemas.CallToolResultSchema, value).success, true, type);
    }
  });

  test('constructs it does not model compile to "ask zod"', () => {
    const cases: Array<[ZodSchema<unknown>, unknown]> = [
      [z.object({ a: z.string() }), { a: 'x' }], // strips unknown keys: not the same value
      [z.strictObject({ a: z.string() }), { a: 'x' }],
      [z.string().check(z.minLength(2)), 'abc'],
      [z.pipe(z.string(), z.transform((s: string) => s.length)), 'abc'],
      [z.xor([z.string(), z.number()]), 'a'],
    ];
    for (const [schema, value] of cases) {
      assert.equal(fastTest(schema)(value), false, fastTestSource(schema));
      assert.equal(fastSafeParse(schema, value).success, schema.safeParse(value).success);
    }
  });

  test('the generated source holds only schema keys and literals, escaped', () => {
    const schema = z.looseObject({ 'a"b\\c\n': z.literal('x"y'), '</script>': z.optional(z.string()) });
    const value = { 'a"b\\c\n': 'x"y', '</script>': 's' };
    assert.equal(checkContract('odd keys', schema, value), true);
    assert.equal(fastTest(schema)({ 'a"b\\c\n': 'x' }), false);
  });
});
