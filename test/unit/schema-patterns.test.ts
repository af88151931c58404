// Schema patterns a server supplies run on RE2 (#18): linear time whatever the pattern, through each
// way a schema is used (the editor's validation, the server report, the CLI's outputSchema check,
// elicitation fields). The time bounds are generous: JavaScript's engine needs hours for these.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { linearRegExp, linearRegExpEngine, uncheckedSchemaPatterns, UnsupportedPatternError, unsupportedFeature, fieldOf } from '../../src/util/linearRegExp';
import { compileSchema } from '../../src/host/validation';
import { loadSchemaValidator } from '../../src/host/report/schemaValidity';
import { checkToolSchemas } from '../../src/host/report/checks';
import { checkOutput, describeOutputCheck } from '../../src/cli/outputCheck';
import { matchesPattern, parseTyped, type StringField } from '../../src/vscode/usage/requests/elicitationSchema';

/** Classic ReDoS patterns, each with a text that makes a backtracking engine take exponential time. */
const REDOS: ReadonlyArray<{ pattern: string; text: string }> = [
  { pattern: '^(a|a)*$', text: `${'a'.repeat(5000)}b` },
  { pattern: '(a+)+$', text: `${'a'.repeat(5000)}b` },
  { pattern: '^(.*a){20}$', text: 'a'.repeat(5000) + 'b' },
  { pattern: '^(\\w+\\s?)*$', text: `${'word '.repeat(1000)}!` },
  { pattern: '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$', text: `${'a'.repeat(5000)}!` },
];

/** Well under a second for what backtracking needs ages for; generous for a loaded machine. */
const BOUND_MS = 1000;

function timed<T>(what: string, run: () => T): T {
  const start = performance.now();
  const value = run();
  const ms = performance.now() - start;
  assert.ok(ms < BOUND_MS, `${what} took ${ms.toFixed(0)} ms`);
  return value;
}

async function timedAsync<T>(what: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await run();
  const ms = performance.now() - start;
  assert.ok(ms < BOUND_MS, `${what} took ${ms.toFixed(0)} ms`);
  return value;
}

describe('the linear-time pattern adapter', () => {
  test('matches as JavaScript does on ordinary patterns and flags', () => {
    const cases: Array<[string, string, string, boolean]> = [
      ['^\\d{3}-\\d{4}$', '', '555-1234', true],
      ['^\\d{3}-\\d{4}$', '', '555-12345', false],
      ['abc', 'i', 'xABCx', true],
      ['^b$', 'm', 'a\nb\nc', true],
      ['^a.c$', 's', 'a\nc', true],
      ['^a.c$', 'u', 'a\nc', false],
      ['^\\p{Lu}\\p{Ll}+$', 'u', 'Ärger', true],
      ['^[\\u0041-\\u005A]+$', 'u', 'ABC', true],
      ['^(?<year>\\d{4})$', 'u', '2026', true],
      ['^[^/]+/x$', 'u', 'a/x', true],
      ['', 'u', 'anything', true],
    ];
    for (const [pattern, flags, text, expected] of cases) {
      assert.equal(linearRegExp(pattern, flags).test(text), expected, `/${pattern}/${flags} on ${JSON.stringify(text)}`);
      assert.equal(new RegExp(pattern, flags).test(text), expected, 'the case itself is what JavaScript does');
    }
  });

  test('classic ReDoS patterns run in linear time', () => {
    for (const { pattern, text } of REDOS) {
      const re = linearRegExp(pattern, 'u');
      timed(pattern, () => re.test(text));
    }
    assert.equal(linearRegExp('^(a|a)*$', 'u').test('a'.repeat(5000)), true);
    assert.equal(linearRegExp('^(a|a)*$', 'u').test(`${'a'.repeat(5000)}b`), false);
  });

  test('backreferences and lookaround are unsupported, named, never run by JavaScript', () => {
    for (const [pattern, reason] of [
      ['(a)\\1', /backreferences/],
      ['(?<x>a)\\k<x>', /backreferences/],
      ['a(?=b)', /lookahead/],
      ['a(?!b)', /lookahead/],
      ['(?<=a)b', /lookbehind/],
      ['(?<!a)b', /lookbehind/],
    ] as const) {
      assert.throws(() => linearRegExp(pattern, 'u'), (err: unknown) => err instanceof UnsupportedPatternError && reason.test(err.message), pattern);
    }
    // In a class, or escaped, they are ordinary characters.
    assert.equal(unsupportedFeature('[(?=]\\(?=x'), undefined);
    assert.equal(linearRegExp('[(?=]', 'u').test('?'), true);
  });

  test('a valid JavaScript pattern RE2 cannot hold is unsupported; an invalid one is a SyntaxError', () => {
    assert.throws(() => linearRegExp('a{1001}', 'u'), UnsupportedPatternError);
    assert.throws(() => linearRegExp('(', 'u'), SyntaxError);
    assert.throws(() => linearRegExp('(a)\\1(', 'u'), SyntaxError);
  });

  test("Ajv's engine: a pattern RE2 cannot run passes every value; distinct patterns have distinct keys", () => {
    assert.notEqual(linearRegExpEngine.code, 'new RegExp');
    assert.equal(linearRegExpEngine('a(?=b)', 'u').test('zzz'), true);
    assert.notEqual(String(linearRegExpEngine('a', 'u')), String(linearRegExpEngine('b', 'u')));
    assert.throws(() => linearRegExpEngine('(', 'u'), SyntaxError);
  });

  test('unchecked patterns are found with their place and field; data keywords are not patterns', () => {
    const schema = {
      type: 'object',
      properties: {
        zip: { type: 'string', pattern: '^(\\d)\\1$' },
        address: { type: 'object', properties: { city: { type: 'string', pattern: '^(?!x)' } } },
        list: { type: 'array', items: { type: 'string', pattern: '(?<=a)b' } },
        ok: { type: 'string', pattern: '^(a|a)*$', default: { pattern: '(a)\\1' } },
        pattern: { type: 'string' },
      },
      patternProperties: { '^(?=x)': { type: 'string' } },
      examples: [{ pattern: '(a)\\1' }],
    };
    const found = uncheckedSchemaPatterns(schema);
    assert.deepEqual(
      found.map((u) => [u.schemaPath, u.field]).sort(),
      [
        ['/patternProperties/^(?=x)', 'the value'],
        ['/properties/address/properties/city/pattern', 'address.city'],
        ['/properties/list/items/pattern', 'list[]'],
        ['/properties/zip/pattern', 'zip'],
      ].sort(),
    );
    assert.equal(fieldOf(['properties', 'a', 'items', 'properties', 'b', 'pattern']), 'a[].b');
  });
});

describe('every entry point runs schema patterns in linear time', () => {
  test("the editor's validation (tool arguments, results, forms)", async () => {
    for (const { pattern, text } of REDOS) {
      const compiled = await compileSchema({ type: 'object', properties: { s: { type: 'string', pattern } }, patternProperties: { [pattern]: { type: 'string' } } });
      assert.equal(compiled.kind, 'ok');
      if (compiled.kind !== 'ok') continue;
      const issues = timed(`validation with ${pattern}`, () => compiled.validate({ s: text, [text]: 1 }));
      assert.ok(issues.some((i) => i.path === '/s' && i.keyword === 'pattern'), JSON.stringify(issues));
    }
    const keyed = await compileSchema({ type: 'object', patternProperties: { '^x(a|a)*$': { type: 'string' } } });
    assert.ok(keyed.kind === 'ok' && keyed.validate({ xaa: 1, y: 1 }).some((i) => i.path === '/xaa' && i.keyword === 'type'), 'a patternProperties key matched on RE2');
  });

  test("the editor's validation says which pattern was not checked; the value still validates", async () => {
    const compiled = await compileSchema({ type: 'object', properties: { code: { type: 'string', pattern: '^(\\w)\\1$', minLength: 2 } } });
    assert.equal(compiled.kind, 'ok');
    if (compiled.kind !== 'ok') return;
    assert.deepEqual(compiled.validate({ code: 'xy' }), []);
    assert.equal(compiled.validate({ code: 'x' })[0]?.keyword, 'minLength');
    assert.equal(compiled.notes.length, 1);
    assert.match(compiled.notes[0], /of code \(\/properties\/code\/pattern\) was not checked: RE2 has no backreferences/);
  });

  test('the server report: schemas compile in linear time; an unsupported pattern is a finding', () => {
    const validator = loadSchemaValidator();
    for (const { pattern } of REDOS) {
      const verdict = timed(`report with ${pattern}`, () => validator.check({ type: 'object', properties: { s: { type: 'string', pattern, default: 'a'.repeat(5000) } }, patternProperties: { [pattern]: {} } }));
      assert.equal(verdict.kind, 'valid');
    }
    const tool = { name: 't', description: 'T', inputSchema: { type: 'object' as const, properties: { s: { type: 'string', pattern: 'a(?=b)' } } } };
    const findings = checkToolSchemas(tool, validator, undefined);
    const unchecked = findings.find((f) => f.rule === 'schema-pattern-unchecked');
    assert.ok(unchecked, JSON.stringify(findings));
    assert.match(unchecked.message, /inputSchema: the pattern "a\(\?=b\)" of s \(\/properties\/s\/pattern\) was not checked: RE2 has no lookahead/);
  });

  test("the CLI's outputSchema check: linear, names the path and the keyword", async () => {
    for (const { pattern, text } of REDOS) {
      const tool = { name: 't', inputSchema: { type: 'object' as const }, outputSchema: { type: 'object' as const, properties: { s: { type: 'string', pattern } } } };
      const check = await timedAsync(`CLI check with ${pattern}`, () => checkOutput(tool, { content: [], structuredContent: { s: text } }));
      assert.equal(check?.status, 'invalid');
      assert.deepEqual(check?.issues.map((i) => [i.path, i.keyword]), [['/s', 'pattern']]);
      assert.match(describeOutputCheck(check!, 't'), /does not match its outputSchema:\n {2}\/s \(s\) must match pattern .* \[pattern\]/);
    }
    const unsupported = { name: 'u', inputSchema: { type: 'object' as const }, outputSchema: { type: 'object' as const, properties: { s: { type: 'string', pattern: '(a)\\1' } } } };
    const check = await checkOutput(unsupported, { content: [], structuredContent: { s: 'ab' } });
    assert.equal(check?.status, 'valid');
    assert.match(describeOutputCheck(check!, 'u'), /outputSchema of tool "u": the pattern "\(a\)\\\\1" of s .* was not checked/);
    assert.equal((await checkOutput(unsupported, { content: [] }))?.status, 'missing');
    assert.equal(await checkOutput(unsupported, { content: [], isError: true }), undefined);
  });

  test('elicitation fields', () => {
    for (const { pattern, text } of REDOS) {
      const field: StringField = { kind: 'string', name: 's', label: 'S', required: true, pattern };
      const result = timed(`elicitation with ${pattern}`, () => parseTyped(field, text));
      assert.match(result.error ?? '', /Must match the pattern/);
    }
    assert.equal(matchesPattern('(a)\\1', 'xy'), true, 'a pattern RE2 cannot run is not held against the person');
    assert.equal(matchesPattern('^\\d+$', '12'), true);
    assert.equal(matchesPattern('^\\d+$', '1a'), false);
  });
});
