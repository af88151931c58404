// `mcp-host report` (the built dist/cli.js) against real servers: server-everything,
// server-filesystem, and a fixture whose tools break every rule.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { EVERYTHING, FILESYSTEM } from '../helpers/servers';
import { startEverythingHttp } from '../helpers/http';
import type { Finding, ServerReport } from '../../src/host/report';
import type { RuleId } from '../../src/host/report/model';
import type { Prompt, Tool } from '../../src/protocol/schemas';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const node = process.execPath;

function cli(args: string[]) {
  const r = spawnSync(node, [CLI, ...args], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What the server really lists, from `mcp-host list --json`: the facts the report is checked against. */
function listed(server: string[]): { tools: Tool[]; prompts: Prompt[] } {
  const r = cli(['list', '--json', '--', node, ...server]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { tools: Tool[]; prompts: Prompt[] };
}

function reportOf(server: string[], extra: string[] = []): ServerReport {
  const r = cli(['report', '--json', ...extra, '--', node, ...server]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as ServerReport;
}

const findingsOf = (report: ServerReport, rule: RuleId) => report.findings.filter((f) => f.rule === rule);
const namesOf = (findings: readonly Finding[]) => findings.map((f) => f.subject.name).sort();

/** What the report should find, worked out here from the real list (not from the report's code). */
function expectedFacts(tools: Tool[], prompts: Prompt[]) {
  const characters = tools.reduce(
    (sum, t) => sum + JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations }).length,
    0,
  );
  const withoutAnyHint = tools.filter((t) => !['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].some((h) => typeof (t.annotations as Record<string, unknown> | undefined)?.[h] === 'boolean'));
  const bareArguments = tools.filter((t) =>
    Object.values((t.inputSchema.properties ?? {}) as Record<string, { description?: string }>).some((p) => !p.description),
  );
  const bareNames = tools.filter((t) => !/^[a-zA-Z0-9_-]{1,64}$/.test(t.name));
  const barePromptArguments = prompts.filter((p) => (p.arguments ?? []).some((a) => !a.description));
  return { characters, withoutAnyHint, bareArguments, bareNames, barePromptArguments };
}

describe('mcp-host report (the built dist/cli.js)', () => {
  test('server-everything: its tool count, token estimate and the findings its real lists call for', () => {
    const { tools, prompts } = listed(EVERYTHING);
    const report = reportOf(EVERYTHING);
    const facts = expectedFacts(tools, prompts);
    assert.equal(report.counts.tools, tools.length);
    assert.ok(tools.length >= 10, `server-everything has many tools (${tools.length})`);
    assert.equal(report.counts.prompts, prompts.length);
    assert.equal(report.server.implementation, 'mcp-servers/everything');
    assert.equal(report.tokens.characters, facts.characters);
    assert.equal(report.tokens.tokens, Math.ceil(facts.characters / 4));
    const costliest = tools.map((t) => t.name).find((name) => name === report.largestTools[0].name);
    assert.ok(costliest, 'the costliest tool is one of its tools');
    assert.deepEqual(namesOf(findingsOf(report, 'tool-annotations-missing').filter((f) => f.severity === 'warning')), facts.withoutAnyHint.map((t) => t.name).sort());
    assert.deepEqual(namesOf(findingsOf(report, 'tool-argument-description-missing')), facts.bareArguments.map((t) => t.name).sort());
    assert.deepEqual(namesOf(findingsOf(report, 'prompt-argument-description-missing')), facts.barePromptArguments.map((p) => p.name).sort());
    assert.deepEqual(namesOf([...findingsOf(report, 'tool-name-length'), ...findingsOf(report, 'tool-name-characters')]), facts.bareNames.map((t) => t.name).sort());
    // Its schemas declare draft-07, and are valid draft-07.
    assert.ok(tools.every((t) => t.inputSchema.$schema === 'http://json-schema.org/draft-07/schema#'));
    assert.deepEqual(findingsOf(report, 'schema-invalid'), []);
    assert.deepEqual(findingsOf(report, 'schema-dialect-unknown'), []);
    assert.match(report.grade, /^[A-F]$/);
  });

  test('server-everything as Markdown: the grade, the counts and every finding with its fix', () => {
    const report = reportOf(EVERYTHING);
    const r = cli(['report', '--', node, ...EVERYTHING]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^# Server report: index\.js$/m);
    assert.match(r.stdout, new RegExp(`\\*\\*Grade ${report.grade}\\*\\* \\(score ${report.score} of 100\\)`));
    assert.match(r.stdout, new RegExp(`^\\| Tools \\| ${report.counts.tools} \\|$`, 'm'));
    assert.match(r.stdout, /mcp-servers\/everything/);
    for (const finding of report.findings) {
      assert.ok(r.stdout.includes(`\`${finding.subject.name}\``), finding.subject.name);
      assert.ok(r.stdout.includes(finding.fix), finding.fix);
    }
    assert.match(r.stdout, /## How this report is made/);
  });

  test('server-filesystem: its tools, the hints it leaves out and no schema problems', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-report-fs-'));
    const server = [...FILESYSTEM, dir];
    const { tools, prompts } = listed(server);
    const report = reportOf(server);
    const facts = expectedFacts(tools, prompts);
    assert.equal(report.counts.tools, tools.length);
    assert.equal(report.server.implementation, 'secure-filesystem-server');
    assert.equal(report.tokens.characters, facts.characters);
    // Its read-only tools give no destructive/idempotent hints: for a read-only tool they do not apply.
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true);
    assert.ok(readOnly.length > 0);
    const partly = findingsOf(report, 'tool-annotations-missing');
    for (const t of readOnly) {
      const expected = typeof t.annotations?.openWorldHint === 'boolean' ? 0 : 1;
      assert.equal(partly.filter((f) => f.subject.name === t.name).length, expected, t.name);
    }
    assert.deepEqual(namesOf(findingsOf(report, 'tool-argument-description-missing')), facts.bareArguments.map((t) => t.name).sort());
    assert.deepEqual(findingsOf(report, 'schema-invalid'), []);
    assert.deepEqual(findingsOf(report, 'output-schema-not-object'), [], 'its outputSchemas are objects');
  });

  test('a server with bad tools: every rule fires against a real process, naming the tool and the fix', () => {
    const report = reportOf([fixture('report-bad-tools.mjs')]);
    const fired = (rule: RuleId) => namesOf(findingsOf(report, rule));
    assert.deepEqual(fired('tool-name-length'), ['a_tool_name_that_goes_on_and_on_well_past_the_sixty_four_characters_models_take']);
    assert.deepEqual(fired('tool-name-characters'), ['bad name!', 'dotted.name']);
    assert.deepEqual(fired('tool-name-duplicate'), ['dup']);
    assert.deepEqual(fired('input-schema-not-object'), ['input_not_object']);
    assert.deepEqual(fired('output-schema-not-object'), ['output_not_object']);
    assert.deepEqual(fired('schema-invalid'), ['invalid_2019', 'invalid_2020', 'invalid_draft07', 'output_invalid']);
    assert.deepEqual(fired('schema-dialect-unknown'), ['unknown_dialect']);
    assert.deepEqual(fired('tool-description-missing'), ['no_description']);
    assert.deepEqual(fired('tool-description-long'), ['long_description']);
    assert.deepEqual(fired('tool-annotations-missing'), ['no_annotations', 'some_annotations']);
    assert.deepEqual(fired('tool-argument-description-missing'), ['bare_argument']);
    assert.deepEqual(fired('prompt-description-missing'), ['undescribed_prompt']);
    assert.deepEqual(fired('prompt-argument-description-missing'), ['bare_prompt_argument']);
    assert.deepEqual(fired('resource-description-missing'), ['undescribed_resource']);
    assert.deepEqual(fired('template-description-missing'), ['undescribed_template']);
    assert.deepEqual(fired('tool-name-shared-with-peer'), [], 'alone, it shares no names');
    assert.deepEqual(fired('list-failed'), [], 'every list loads');
    assert.equal(report.grade, 'F');
    // The same server, with a list that fails.
    const failing = reportOf([fixture('report-bad-tools.mjs'), 'fail-templates']);
    const listFailed = findingsOf(failing, 'list-failed');
    assert.equal(listFailed.length, 1);
    assert.match(listFailed[0].message, /resources\/templates\/list failed: .*templates are broken today/);
  });

  test('--fail-on: exit 1 when a finding of that severity or worse is there, 0 otherwise', () => {
    assert.equal(cli(['report', '--fail-on', 'error', '--', node, fixture('report-bad-tools.mjs')]).code, 1);
    assert.equal(cli(['report', '--fail-on', 'info', '--', node, fixture('report-bad-tools.mjs'), 'clean']).code, 0);
    assert.equal(cli(['report', '--', node, fixture('report-bad-tools.mjs')]).code, 0, 'without --fail-on findings do not change the exit status');
  });

  describe('--config', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-report-config-'));
    const config = path.join(dir, 'mcp.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        servers: {
          bad: { command: node, args: [fixture('report-bad-tools.mjs')] },
          clean: { command: node, args: [fixture('report-bad-tools.mjs'), 'clean'] },
        },
      }),
    );

    test('without --server: every server, started together, with the tool names they share', () => {
      const r = cli(['report', '--json', '--config', config]);
      assert.equal(r.code, 0, r.stderr);
      const { reports, unreported } = JSON.parse(r.stdout) as { reports: ServerReport[]; unreported: unknown[] };
      assert.deepEqual(unreported, []);
      assert.deepEqual(reports.map((x) => x.server.name).sort(), ['bad', 'clean']);
      const bad = reports.find((x) => x.server.name === 'bad')!;
      const clean = reports.find((x) => x.server.name === 'clean')!;
      const badShared = findingsOf(bad, 'tool-name-shared-with-peer');
      assert.deepEqual(namesOf(badShared), ['shared_tool']);
      assert.match(badShared[0].message, /"clean"/);
      const cleanShared = findingsOf(clean, 'tool-name-shared-with-peer');
      assert.deepEqual(namesOf(cleanShared), ['shared_tool']);
      assert.match(cleanShared[0].message, /"bad"/);
      assert.deepEqual(
        clean.findings.map((f) => f.rule),
        ['tool-name-shared-with-peer'],
        'the clean server has nothing else',
      );
      const markdown = cli(['report', '--config', config]);
      assert.equal(markdown.code, 0, markdown.stderr);
      assert.match(markdown.stdout, /^# Server report: 2 servers$/m);
      assert.match(markdown.stdout, /^\| bad \| F \|/m);
      assert.match(markdown.stdout, /^## Server report: clean$/m);
    });

    test('--server NAME: that one alone (no peers)', () => {
      const r = cli(['report', '--json', '--config', config, '--server', 'clean']);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as ServerReport;
      assert.equal(report.server.name, 'clean');
      assert.deepEqual(report.findings, []);
      assert.equal(report.grade, 'A');
      const missing = cli(['report', '--config', config, '--server', 'nope']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no server named "nope".*it has: bad, clean/);
    });

    test('a server that cannot start: the others are reported, it is named, exit 3', () => {
      const withBroken = path.join(dir, 'broken.json');
      fs.writeFileSync(
        withBroken,
        JSON.stringify({ servers: { clean: { command: node, args: [fixture('report-bad-tools.mjs'), 'clean'] }, broken: { command: node, args: [fixture('exit-immediately.mjs')] } } }),
      );
      const r = cli(['report', '--config', withBroken]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stdout, /^\| clean \| A \|/m);
      assert.match(r.stdout, /^\| broken \| – \| – \| – \| not reported: .*exited/m);
      assert.match(r.stderr, /server 'broken' was not reported on/);
    });
  });

  test('no secret of the configuration reaches the report or stderr, even from a server that prints it and dies', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-report-secret-'));
    const config = path.join(dir, 'mcp.json');
    const secret = 'sk-report-test-0123456789abcdef';
    fs.writeFileSync(
      config,
      JSON.stringify({
        servers: {
          leaky: { command: node, args: [fixture('leak-secrets.mjs'), `--token=${secret}`], env: { API_KEY: secret, LEAK_ENV: 'API_KEY', LEAK_FAIL: '1' } },
          clean: { command: node, args: [fixture('report-bad-tools.mjs'), 'clean'] },
        },
      }),
    );
    for (const json of [[], ['--json']]) {
      const r = cli(['report', ...json, '--verbose', '--config', config]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stdout, /leaky/, 'the server that did not start is named');
      assert.match(r.stderr, /server 'leaky' was not reported on/);
      assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), `${r.stdout}\n${r.stderr}`);
    }
  });

  test('--url: a remote server (server-everything over Streamable HTTP) is reported the same way', async () => {
    const server = await startEverythingHttp('streamableHttp');
    try {
      // Not spawnSync: the server's output is read by this process while the CLI runs.
      const { stdout } = await promisify(execFile)(node, [CLI, 'report', '--json', '--url', `${server.base}/mcp`], { cwd: REPO_ROOT, timeout: 60_000 });
      const report = JSON.parse(stdout) as ServerReport;
      assert.equal(report.server.name, new URL(server.base).host);
      assert.equal(report.server.implementation, 'mcp-servers/everything');
      assert.equal(report.counts.tools, listed(EVERYTHING).tools.length, 'the same tools as over stdio');
    } finally {
      await server.stop();
    }
  });

  test('usage errors exit 2 with one line', () => {
    for (const args of [['report'], ['report', '--fail-on', 'sometimes', '--', node, 'x'], ['report', '--url', 'https://x.example', '--', node, 'x']]) {
      const r = cli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    }
    const help = cli(['report', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--fail-on/);
  });
});
