import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '../../src/protocol/schemas';
import {
  checkAnnotations,
  checkArgumentDescriptions,
  checkDuplicateNames,
  checkListErrors,
  checkNamesSharedWithPeers,
  checkPrompt,
  checkResource,
  checkTemplate,
  checkToolDescription,
  checkToolName,
  checkToolSchemas,
  suggestedName,
} from '../../src/host/report/checks';
import { buildServerReport } from '../../src/host/report/build';
import { gradeOf, scoreOf, type Finding, type ReportInput } from '../../src/host/report/model';
import { declaredDialect, loadSchemaValidator } from '../../src/host/report/schemaValidity';
import { estimateTokens, modelVisibleDefinition, toolCosts } from '../../src/host/report/tokens';
import { formatReportMarkdown, formatReportsMarkdown } from '../../src/host/report/markdown';
import { reportInputOf, type ReportedConnection } from '../../src/host/report';

const validator = loadSchemaValidator();

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'Any text' } } },
    annotations: { readOnlyHint: true, openWorldHint: false },
    ...extra,
  };
}

const rules = (findings: readonly Finding[]) => findings.map((f) => `${f.severity}:${f.rule}`);

function input(tools: Tool[], extra: Partial<ReportInput> = {}): ReportInput {
  return { server: { name: 'fixture', protocolVersion: '2025-11-25' }, lists: { tools, prompts: [], resources: [], resourceTemplates: [] }, peers: [], ...extra };
}

describe('tool names', () => {
  test('64 characters of letters, digits, "_" and "-" pass; one more is a warning; beyond 128 (the spec) an error', () => {
    assert.deepEqual(checkToolName(tool('a'.repeat(64))), []);
    assert.deepEqual(checkToolName(tool('Get_user-2')), []);
    const long = checkToolName(tool('a'.repeat(65)));
    assert.deepEqual(rules(long), ['warning:tool-name-length']);
    assert.match(long[0].message, /65 characters long/);
    assert.match(long[0].message, /at most 64/);
    assert.match(long[0].message, /1–128 characters/, 'says what the spec allows too');
    assert.match(long[0].fix, new RegExp(`"${'a'.repeat(64)}"`), 'suggests a name that fits');
    assert.deepEqual(rules(checkToolName(tool('a'.repeat(129)))), ['error:tool-name-length']);
    assert.deepEqual(rules(checkToolName(tool(''))), ['error:tool-name-length']);
  });

  test('a dot (allowed by the spec, not by model APIs) is a warning; a space or "!" an error; the fix suggests a name', () => {
    const dotted = checkToolName(tool('admin.tools.list'));
    assert.deepEqual(rules(dotted), ['warning:tool-name-characters']);
    assert.match(dotted[0].message, /"\."/);
    assert.match(dotted[0].fix, /"admin_tools_list"/);
    const odd = checkToolName(tool('bad name!'));
    assert.deepEqual(rules(odd), ['error:tool-name-characters']);
    assert.match(odd[0].message, /" ", "!"/);
    assert.match(odd[0].fix, /"bad_name"/);
    assert.equal(suggestedName('ünïcode tool'), 'n_code_tool');
    assert.equal(suggestedName('!!!'), 'tool');
  });

  test('a name used twice by one server is an error, once', () => {
    const findings = checkDuplicateNames([tool('dup'), tool('dup'), tool('other')]);
    assert.deepEqual(rules(findings), ['error:tool-name-duplicate']);
    assert.equal(findings[0].subject.name, 'dup');
    assert.match(findings[0].message, /2 tools/);
  });

  test('a name shared with a server running beside it is a warning naming that server; other names are not', () => {
    const peers = [
      { name: 'github', tools: [{ name: 'search' }, { name: 'issues' }] },
      { name: 'web', tools: [{ name: 'search' }] },
      { name: 'idle', tools: [] },
    ];
    const findings = checkNamesSharedWithPeers([tool('search'), tool('read')], peers);
    assert.deepEqual(rules(findings), ['warning:tool-name-shared-with-peer']);
    assert.equal(findings[0].subject.name, 'search');
    assert.match(findings[0].message, /"github", "web"/);
    assert.doesNotMatch(findings[0].message, /idle/);
    assert.match(findings[0].fix, /more specific name/);
    assert.deepEqual(checkNamesSharedWithPeers([tool('read')], peers), []);
  });

  test('a peer with most of the server\'s tool names is one finding: the same server configured twice', () => {
    const mine = ['echo', 'add', 'sleep', 'env', 'zip'].map((n) => tool(n));
    const twin = { name: 'everything-remote', tools: ['echo', 'add', 'sleep', 'env'].map((name) => ({ name })) };
    const other = { name: 'memory', tools: [{ name: 'zip' }] };
    const findings = checkNamesSharedWithPeers(mine, [twin, other]);
    assert.deepEqual(
      findings.map((f) => [f.subject.kind, f.subject.name]),
      [
        ['peer', 'everything-remote'],
        ['tool', 'zip'],
      ],
    );
    assert.match(findings[0].message, /has 4 of its 5 tool names .*same server configured twice/);
    assert.match(findings[0].fix, /Keep one of the two running/);
    assert.doesNotMatch(findings[1].message, /everything-remote/);
  });
});

describe('schemas, per dialect', () => {
  test('the dialect is read from $schema (http or https, with or without "#"); none is 2020-12', () => {
    assert.equal(declaredDialect({}), '2020-12');
    assert.equal(declaredDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }), 'draft-07');
    assert.equal(declaredDialect({ $schema: 'https://json-schema.org/draft-07/schema' }), 'draft-07');
    assert.equal(declaredDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' }), '2019-09');
    assert.equal(declaredDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema#' }), '2020-12');
    assert.deepEqual(declaredDialect({ $schema: 'http://json-schema.org/draft-04/schema#' }), { unknown: 'http://json-schema.org/draft-04/schema#' });
    assert.deepEqual(declaredDialect({ $schema: 7 }), { unknown: '7' });
  });

  test('valid schemas of each dialect pass, an https draft-07 URI included', () => {
    for (const $schema of [undefined, 'http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft-07/schema', 'https://json-schema.org/draft/2019-09/schema']) {
      const t = tool('ok', { inputSchema: { $schema, type: 'object', properties: { a: { type: 'number', description: 'a' } }, required: ['a'] } });
      assert.deepEqual(checkToolSchemas(t, validator, '2025-11-25'), [], String($schema));
    }
  });

  test('an invalid schema is an error naming the dialect, the place and what is wrong', () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['2020-12', { type: 'object', properties: { x: { type: 'strng' } } }, /2020-12 \(no "\$schema": MCP's default dialect\): \/properties\/x\/type must be equal to one of the allowed values/],
      ['draft-07', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { x: { minLength: -1 } } }, /draft-07 .*\/properties\/x\/minLength must be >= 0/],
      ['2019-09', { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', required: 'x' }, /2019-09 .*\/required must be array/],
    ];
    for (const [dialect, inputSchema, message] of cases) {
      const findings = checkToolSchemas(tool('t', { inputSchema }), validator, '2025-11-25');
      assert.deepEqual(rules(findings), ['error:schema-invalid'], dialect);
      assert.match(findings[0].message, /^inputSchema is not valid JSON Schema/);
      assert.match(findings[0].message, message);
      assert.match(findings[0].fix, new RegExp(`${dialect} meta-schema`));
    }
  });

  test('the same schema is judged by its own dialect: array-form "items" is draft-07, not 2020-12', () => {
    const properties = { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], description: 'a pair' } };
    assert.deepEqual(checkToolSchemas(tool('t', { inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties } }), validator, undefined), []);
    assert.deepEqual(rules(checkToolSchemas(tool('t', { inputSchema: { type: 'object', properties } }), validator, undefined)), ['error:schema-invalid']);
  });

  test('a $ref to nowhere is invalid (found by compiling); two tools may share an $id', () => {
    const dangling = checkToolSchemas(tool('t', { inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } }), validator, undefined);
    assert.deepEqual(rules(dangling), ['error:schema-invalid']);
    assert.match(dangling[0].message, /missing/);
    const withId = { $id: 'https://example.com/args', type: 'object' };
    assert.deepEqual(checkToolSchemas(tool('a', { inputSchema: withId }), validator, undefined), []);
    assert.deepEqual(checkToolSchemas(tool('b', { inputSchema: withId }), validator, undefined), []);
  });

  test('an unknown $schema is a warning that says which dialects are checked and to use 2020-12', () => {
    const findings = checkToolSchemas(tool('t', { inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } }), validator, undefined);
    assert.deepEqual(rules(findings), ['warning:schema-dialect-unknown']);
    assert.match(findings[0].message, /draft-04/);
    assert.match(findings[0].message, /2020-12, 2019-09, draft-07/);
    assert.match(findings[0].fix, /2020-12/);
  });

  test('inputSchema must be type "object"; outputSchema too before protocol 2026-07-28, and is checked for validity', () => {
    assert.deepEqual(rules(checkToolSchemas(tool('t', { inputSchema: { type: 'array' } }), validator, undefined)), ['error:input-schema-not-object']);
    assert.deepEqual(rules(checkToolSchemas(tool('t', { inputSchema: {} }), validator, undefined)), ['error:input-schema-not-object']);
    const arrayOut = tool('t', { outputSchema: { type: 'array' } });
    assert.deepEqual(rules(checkToolSchemas(arrayOut, validator, '2025-11-25')), ['warning:output-schema-not-object']);
    assert.deepEqual(checkToolSchemas(arrayOut, validator, '2026-07-28'), []);
    const invalidOut = checkToolSchemas(tool('t', { outputSchema: { type: 'object', properties: { y: { minimum: 'zero' } } } }), validator, '2025-11-25');
    assert.deepEqual(rules(invalidOut), ['error:schema-invalid']);
    assert.match(invalidOut[0].message, /^outputSchema /);
  });
});

describe('descriptions and annotations', () => {
  test('a tool without a description (or only spaces) is a warning; a very long one a suggestion', () => {
    assert.deepEqual(rules(checkToolDescription(tool('t', { description: undefined }))), ['warning:tool-description-missing']);
    assert.deepEqual(rules(checkToolDescription(tool('t', { description: '  \n ' }))), ['warning:tool-description-missing']);
    assert.deepEqual(checkToolDescription(tool('t', { description: 'x'.repeat(1024) })), []);
    const long = checkToolDescription(tool('t', { description: 'x'.repeat(2000) }));
    assert.deepEqual(rules(long), ['info:tool-description-long']);
    assert.match(long[0].message, /2000 characters long \(about 500 tokens\)/);
  });

  test('arguments without a description are named', () => {
    const findings = checkArgumentDescriptions(tool('t', { inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', description: 'b' }, c: { type: 'number', description: ' ' } } } }));
    assert.deepEqual(rules(findings), ['info:tool-argument-description-missing']);
    assert.match(findings[0].message, /Arguments "a", "c" have no description/);
    assert.deepEqual(checkArgumentDescriptions(tool('t')), []);
  });

  test('no annotations: a warning listing all four hints; some missing: a suggestion; destructive/idempotent only when not read-only', () => {
    const none = checkAnnotations(tool('t', { annotations: undefined }));
    assert.deepEqual(rules(none), ['warning:tool-annotations-missing']);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) assert.match(none[0].fix, new RegExp(`"${hint}": true\\|false`));
    assert.match(none[0].message, /destructiveHint: true/, 'says what clients assume');
    assert.deepEqual(rules(checkAnnotations(tool('t', { annotations: { title: 'only a title' } }))), ['warning:tool-annotations-missing']);
    assert.deepEqual(checkAnnotations(tool('t', { annotations: { readOnlyHint: true, openWorldHint: false } })), [], 'read-only: destructive/idempotent do not apply');
    const readOnlyNoWorld = checkAnnotations(tool('t', { annotations: { readOnlyHint: true } }));
    assert.deepEqual(rules(readOnlyNoWorld), ['info:tool-annotations-missing']);
    assert.match(readOnlyNoWorld[0].message, /lack openWorldHint;/);
    const writer = checkAnnotations(tool('t', { annotations: { readOnlyHint: false, openWorldHint: true } }));
    assert.deepEqual(rules(writer), ['info:tool-annotations-missing']);
    assert.match(writer[0].message, /lack destructiveHint, idempotentHint/);
    assert.deepEqual(checkAnnotations(tool('t', { annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } })), []);
  });

  test('prompts, prompt arguments, resources and templates without descriptions', () => {
    assert.deepEqual(rules(checkPrompt({ name: 'p' })), ['warning:prompt-description-missing']);
    const args = checkPrompt({ name: 'p', description: 'd', arguments: [{ name: 'x' }, { name: 'y', description: 'y' }] });
    assert.deepEqual(rules(args), ['info:prompt-argument-description-missing']);
    assert.match(args[0].message, /Argument "x" has/);
    assert.deepEqual(checkPrompt({ name: 'p', description: 'd' }), []);
    const resource = checkResource({ uri: 'mem://r', name: 'r' });
    assert.deepEqual(rules(resource), ['info:resource-description-missing']);
    assert.equal(resource[0].subject.kind, 'resource');
    assert.match(resource[0].message, /mem:\/\/r/);
    assert.deepEqual(checkResource({ uri: 'mem://r', name: 'r', description: 'd' }), []);
    const template = checkTemplate({ uriTemplate: 'mem://{x}', name: 't' });
    assert.deepEqual(rules(template), ['info:template-description-missing']);
    assert.equal(template[0].subject.kind, 'template');
  });

  test('a list that failed to load is an error', () => {
    const findings = checkListErrors({ resourceTemplates: 'boom' });
    assert.deepEqual(rules(findings), ['error:list-failed']);
    assert.match(findings[0].message, /resources\/templates\/list failed: boom/);
  });
});

describe('token estimate, score and grade', () => {
  test('characters of name, description, schemas and annotations as JSON, divided by 4 and rounded up; title and _meta are not counted', () => {
    const t = tool('t', { title: 'A long title that is not sent', _meta: { big: 'x'.repeat(500) } });
    const json = JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: undefined, annotations: t.annotations });
    assert.equal(modelVisibleDefinition(t), json);
    assert.equal(estimateTokens(0), 0);
    assert.equal(estimateTokens(4), 1);
    assert.equal(estimateTokens(5), 2);
    const small = tool('s', { description: undefined, inputSchema: { type: 'object' }, annotations: undefined });
    assert.equal(modelVisibleDefinition(small), '{"name":"s","inputSchema":{"type":"object"}}');
    const costs = toolCosts([small, t]);
    assert.deepEqual(
      costs.perTool.map((c) => [c.name, c.characters, c.tokens]),
      [
        ['t', json.length, Math.ceil(json.length / 4)],
        ['s', 44, 11],
      ],
      'most expensive first',
    );
    assert.equal(costs.characters, json.length + 44);
    assert.equal(costs.tokens, Math.ceil((json.length + 44) / 4));
  });

  test('score: 100 less 20 per error, 5 per warning, 1 per info (10 at most); grades A–F', () => {
    assert.equal(scoreOf({ errors: 0, warnings: 0, infos: 0 }), 100);
    assert.equal(scoreOf({ errors: 1, warnings: 2, infos: 3 }), 67);
    assert.equal(scoreOf({ errors: 0, warnings: 0, infos: 40 }), 90, 'infos take 10 at most');
    assert.equal(scoreOf({ errors: 9, warnings: 0, infos: 0 }), 0, 'never below 0');
    assert.deepEqual([100, 90, 89, 80, 79, 70, 69, 60, 59, 0].map(gradeOf), ['A', 'A', 'B', 'B', 'C', 'C', 'D', 'D', 'F', 'F']);
  });

  test('the report: counts, the five costliest tools, findings sorted errors first, summary and grade', () => {
    const tools = [tool('a'), tool('b b'), tool('c', { description: undefined }), tool('d', { description: 'x'.repeat(3000) }), tool('e'), tool('f')];
    const report = buildServerReport(
      input(tools, {
        lists: { tools, prompts: [{ name: 'p' }], resources: [{ uri: 'mem://r', name: 'r' }], resourceTemplates: [] },
        server: { name: 'fixture', serverInfo: { name: 'impl', version: '1.0' }, protocolVersion: '2025-11-25' },
      }),
      validator,
    );
    assert.deepEqual(report.counts, { tools: 6, prompts: 1, resources: 1, resourceTemplates: 0 });
    assert.equal(report.largestTools.length, 5);
    assert.equal(report.largestTools[0].name, 'd');
    assert.deepEqual(rules(report.findings), ['error:tool-name-characters', 'warning:tool-description-missing', 'warning:prompt-description-missing', 'info:tool-description-long', 'info:resource-description-missing']);
    assert.deepEqual(report.summary, { errors: 1, warnings: 2, infos: 2 });
    assert.equal(report.score, 68);
    assert.equal(report.grade, 'D');
    assert.deepEqual(report.server, { name: 'fixture', implementation: 'impl', title: undefined, version: '1.0', protocolVersion: '2025-11-25' });
  });
});

describe('the Markdown document', () => {
  const tools = [tool('bad name!'), tool('no_annotations', { annotations: undefined }), tool('shared')];
  const report = buildServerReport(input(tools, { peers: [{ name: 'other', tools: [{ name: 'shared' }] }] }), validator);
  const markdown = formatReportMarkdown(report);

  test('names every finding with its tool, what is wrong and the fix', () => {
    assert.equal(report.findings.length, 3);
    for (const finding of report.findings) {
      const line = markdown.split('\n').findIndex((l) => l.includes(`\`${finding.subject.name}\``) && l.startsWith('- **Tool'));
      assert.ok(line >= 0, `a line names ${finding.subject.name}`);
      const fixLine = markdown.split('\n')[line + 1];
      assert.match(fixLine, /^ {2}- Fix: /);
      assert.ok(fixLine.includes(finding.rule), fixLine);
    }
    assert.match(markdown, /- \*\*Tool `bad name!`\*\*: The name contains " ", "!"/);
    assert.match(markdown, /Fix: Rename it using only letters, digits, "_" and "-", e.g. "bad_name"/);
    assert.match(markdown, /### Errors \(1\)[\s\S]*### Warnings \(2\)/);
  });

  test('has the grade, the token estimate with its rule, the largest tools, and how the grade is made', () => {
    assert.match(markdown, /^# Server report: fixture$/m);
    assert.match(markdown, /\*\*Grade C\*\* \(score 70 of 100\): 1 error, 2 warnings, 0 suggestions\./);
    assert.match(markdown, new RegExp(`\\| Tool definitions \\| ${report.tokens.characters.toLocaleString('en-US')} characters, about ${report.tokens.tokens} tokens \\(characters / 4\\) \\|`));
    assert.match(markdown, /## Largest tools/);
    assert.match(markdown, /## How this report is made/);
    assert.match(markdown, /divided by 4/);
    assert.match(markdown, /100, less 20 per error, 5 per warning and 1 per suggestion/);
    assert.match(markdown, /A from 90, B from 80, C from 70, D from 60, F below 60/);
  });

  test('text from a server stays inert: no HTML, no table break, backticks kept in code spans', () => {
    const odd = [tool('x`y'), tool('t', { description: undefined }), tool('pipe|tool')];
    const r = buildServerReport({ ...input(odd), server: { name: 'odd', serverInfo: { name: '<b>evil</b> | name', version: '1' } } }, validator);
    const md = formatReportMarkdown(r);
    assert.match(md, /``x`y``/);
    assert.match(md, /\| Server \| \\<b>evil\\<\/b> \\\| name 1 \|/);
    assert.match(md, /\| `pipe\\\|tool` \|/);
  });

  test('a clean server says so; several servers get an overview with the ones not reported', () => {
    const clean = buildServerReport(input([tool('fine')]), validator);
    assert.equal(clean.grade, 'A');
    assert.match(formatReportMarkdown(clean), /Nothing to change: every check passed\./);
    const both = formatReportsMarkdown([clean, report], [{ name: 'broken', reason: 'exited with code 1' }]);
    assert.match(both, /^# Server report: 3 servers$/m);
    assert.match(both, /^\| fixture \| A \| 1 \|/m);
    assert.match(both, /^\| fixture \| C \| 3 \|/m);
    assert.match(both, /\| broken \| – \| – \| – \| not reported: exited with code 1 \|/);
    assert.match(both, /^## Server report: fixture$/m, 'each report one level down');
    assert.equal(both.match(/## How this report is made/g)?.length, 1, 'the method once');
  });
});

describe('reportInputOf (from a connection)', () => {
  const running = (name: string, tools: Tool[]): ReportedConnection =>
    ({
      name,
      state: { kind: 'running', serverInfo: { name: `${name}-impl`, version: '1' }, protocolVersion: '2025-11-25' },
      lists: { tools, prompts: [], resources: [], resourceTemplates: [], errors: {} },
      freshLists: () => Promise.resolve(),
    }) as unknown as ReportedConnection;

  test('takes the running server and only the other running servers as peers', () => {
    const me = running('me', [tool('a')]);
    const peer = running('peer', [tool('a')]);
    const stopped = { ...running('stopped', [tool('a')]), state: { kind: 'stopped' } } as unknown as ReportedConnection;
    const got = reportInputOf(me, [me, peer, stopped]);
    assert.equal(got.server.protocolVersion, '2025-11-25');
    assert.equal(got.server.serverInfo?.name, 'me-impl');
    assert.deepEqual(
      got.peers.map((p) => p.name),
      ['peer'],
    );
  });

  test('a server that is not running cannot be reported on', () => {
    const stopped = { ...running('s', []), state: { kind: 'stopped' } } as unknown as ReportedConnection;
    assert.throws(() => reportInputOf(stopped, []), /not running/);
  });
});
