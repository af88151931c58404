// x-mcp-header (2026-07-28, transports/streamable-http.mdx "Custom Headers from Tool
// Parameters"): which tool definitions are valid, which headers a call carries, and how values
// are encoded (the spec's own examples).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHeaderValue, paramHeaderValues, paramHeadersOf } from '../../src/transport/paramHeaders';

const prop = (type: unknown, header: unknown) => ({ type, 'x-mcp-header': header });
const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

function error(inputSchema: unknown): string {
  const found = paramHeadersOf(inputSchema);
  assert.ok('error' in found, `expected an invalid definition: ${JSON.stringify(inputSchema)}`);
  return found.error;
}

describe('x-mcp-header', () => {
  test('valid annotations: string, integer and boolean properties, nested through properties only', () => {
    const found = paramHeadersOf({
      type: 'object',
      properties: {
        region: prop('string', 'Region'),
        priority: prop('integer', 'Priority'),
        verbose: prop('boolean', 'Verbose'),
        query: { type: 'string' },
        target: { type: 'object', properties: { zone: prop('string', 'Zone') } },
        // A property whose name is the keyword is a property, not an annotation.
        'x-mcp-header': { type: 'string' },
      },
    });
    assert.deepEqual(found, {
      headers: [
        { name: 'Region', path: ['region'] },
        { name: 'Priority', path: ['priority'] },
        { name: 'Verbose', path: ['verbose'] },
        { name: 'Zone', path: ['target', 'zone'] },
      ],
    });
    assert.deepEqual(paramHeadersOf({ type: 'object' }), { headers: [] });
    assert.deepEqual(paramHeadersOf(undefined), { headers: [] });
  });

  test('invalid annotations reject the whole definition, each with its reason', () => {
    assert.match(error(schema({ v: prop('string', '') })), /empty/);
    assert.match(error(schema({ v: prop('string', 42) })), /not a string/);
    for (const name of ['My Region', 'Region:Primary', 'Région', 'Region\t1', 'Region\r\n']) {
      assert.match(error(schema({ v: prop('string', name) })), /not an HTTP header name token/, name);
    }
    for (const type of ['object', 'array', 'null', 'number', undefined, ['string', 'null']]) {
      assert.match(error(schema({ v: prop(type, 'V') })), /not string, integer or boolean/, String(type));
    }
    assert.match(error(schema({ a: prop('string', 'Region'), b: prop('string', 'Region') })), /used twice \(a and b\)/);
    assert.match(error(schema({ a: prop('string', 'MyField'), b: prop('string', 'myfield') })), /used twice/);
    // Not statically reachable: under items, a composition, a conditional, $defs.
    assert.match(error(schema({ list: { type: 'array', items: prop('string', 'Item') } })), /not reached through "properties"/);
    assert.match(error({ type: 'object', anyOf: [schema({ v: prop('string', 'V') })] }), /anyOf\.v/);
    assert.match(error({ type: 'object', if: schema({ v: prop('string', 'V') }) }), /not reached/);
    assert.match(error({ type: 'object', $defs: { d: prop('string', 'D') } }), /not reached/);
    assert.match(error(prop('string', 'Root')), /the schema root/);
  });

  test('a call carries each annotated argument that is present, converted to text and encoded', () => {
    const { headers } = paramHeadersOf(
      schema({
        region: prop('string', 'Region'),
        priority: prop('integer', 'Priority'),
        verbose: prop('boolean', 'Verbose'),
        debug: prop('boolean', 'Debug'),
        greeting: prop('string', 'Greeting'),
        empty: prop('string', 'Empty'),
        query: { type: 'string' },
        target: { type: 'object', properties: { zone: prop('string', 'Zone') } },
      }),
    ) as { headers: never[] };
    assert.deepEqual(
      paramHeaderValues(headers, {
        region: 'us-west1',
        priority: 42,
        verbose: false,
        debug: null,
        greeting: 'Hello, 世界',
        empty: '',
        query: 'SELECT 1',
        target: { zone: 'b' },
      }),
      {
        'mcp-param-region': 'us-west1',
        'mcp-param-priority': '42',
        'mcp-param-verbose': 'false',
        'mcp-param-greeting': '=?base64?SGVsbG8sIOS4lueVjA==?=',
        'mcp-param-empty': '',
        'mcp-param-zone': 'b',
      },
    );
    assert.deepEqual(paramHeaderValues(headers, undefined), {});
    assert.deepEqual(paramHeaderValues(headers, { region: { nested: true }, target: 'flat' }), {});
  });

  test('value encoding: the examples of the transport text', () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('us west 1'), 'us west 1');
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    assert.equal(encodeHeaderValue('\tindented'), `=?base64?${Buffer.from('\tindented').toString('base64')}?=`);
    assert.equal(encodeHeaderValue('trailing '), `=?base64?${Buffer.from('trailing ').toString('base64')}?=`);
  });
});
