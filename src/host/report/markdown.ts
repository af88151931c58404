// The report as a Markdown document: what a person reads in the editor's preview or a terminal.
import { ANNOTATIONS_MAX_PENALTY, MAX_INFO_PENALTY, GRADE_FLOORS, PENALTY, type Finding, type ServerReport, type Severity } from './model';
import { CHARACTERS_PER_TOKEN } from './tokens';
import { DEFAULT_DIALECT, DIALECT_URIS } from './schemaValidity';
import { DEFINITION_TOKENS_MANY, DEFINITION_TOKENS_TOO_MANY, LONG_DESCRIPTION, MODEL_API_NAME_MAX, SPEC_NAME_MAX, TOOL_COUNT_LIMIT, TOOL_COUNT_MANY } from './checks';

/** Text from a server, made inert: one line, no Markdown or HTML of its own. */
export function plain(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/[\\`*[\]<]/g, '\\$&');
}

/** The same, in a table cell (where "|" ends the cell). */
export function cell(text: string): string {
  return plain(text).replace(/\|/g, '\\|');
}

/** A code span that holds any text (backticks included). */
export function code(text: string): string {
  const oneLine = text.replace(/[\r\n]+/g, ' ');
  const longestRun = Math.max(0, ...(oneLine.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') || oneLine.length === 0 ? ' ' : '';
  return `${fence}${pad}${oneLine}${pad}${fence}`;
}

const number = (n: number) => n.toLocaleString('en-US');

const SEVERITY_HEADINGS: ReadonlyArray<readonly [Severity, string]> = [
  ['error', 'Errors'],
  ['warning', 'Warnings'],
  ['info', 'Suggestions'],
];

const SUBJECT_LABEL: Readonly<Record<Finding['subject']['kind'], string>> = {
  server: 'Request',
  size: 'Server',
  peer: 'Server',
  tool: 'Tool',
  prompt: 'Prompt',
  resource: 'Resource',
  template: 'Template',
};

function findingLines(finding: Finding): string[] {
  return [`- **${SUBJECT_LABEL[finding.subject.kind]} ${code(finding.subject.name)}**: ${plain(finding.message)}`, `  - Fix: ${plain(finding.fix)} (rule ${code(finding.rule)})`];
}

function summaryLine(report: ServerReport): string {
  const { errors, warnings, infos } = report.summary;
  const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}, ${infos} suggestion${infos === 1 ? '' : 's'}`;
  return `**Grade ${report.grade}** (score ${report.score} of 100): ${counts}.`;
}

function serverLine(report: ServerReport): string {
  const { implementation, version, title } = report.server;
  if (!implementation) return 'unknown';
  return `${cell(implementation)}${version ? ` ${cell(version)}` : ''}${title ? ` (${cell(title)})` : ''}`;
}

/** How the grade and the estimate are made, said in the document itself. */
export function methodSection(): string[] {
  const floors = GRADE_FLOORS.map(([grade, floor]) => `${grade} from ${floor}`).join(', ');
  return [
    '## How this report is made',
    '',
    `- **Tokens** are estimated as the characters of each tool's definition as a model is given it (the JSON of its name, description, inputSchema, outputSchema and annotations) divided by ${CHARACTERS_PER_TOKEN}. Real tokenizers differ; the estimate is for comparing tools and servers. Every definition is sent with every request to the model.`,
    `- **Score**: 100, less ${PENALTY.error} per error, ${PENALTY.warning} per warning and ${PENALTY.info} per suggestion (suggestions take ${MAX_INFO_PENALTY} at most, missing annotations ${ANNOTATIONS_MAX_PENALTY} at most), never below 0. **Grade**: ${floors}, F below ${GRADE_FLOORS[GRADE_FLOORS.length - 1][1]}.`,
    `- **Size**: more than ${TOOL_COUNT_MANY} tools is a warning, more than ${TOOL_COUNT_LIMIT} (what several clients and model APIs accept) an error; tool definitions of about ${number(DEFINITION_TOKENS_MANY)} tokens or more are a warning, ${number(DEFINITION_TOKENS_TOO_MANY)} or more an error.`,
    `- **Names**: common model APIs (OpenAI, Anthropic) accept tool names of letters, digits, "_" and "-", at most ${MODEL_API_NAME_MAX} characters; the MCP specification allows 1–${SPEC_NAME_MAX} characters and also ".". A name outside the specification is an error, one only outside the model APIs' rule a warning. Names shared with other servers running at the same time are warnings: a model given both cannot tell them apart.`,
    `- **Schemas** are checked against their dialect's meta-schema: "$schema" absent means JSON Schema ${DEFAULT_DIALECT} (MCP's default); ${Object.entries(DIALECT_URIS)
      .map(([dialect, uri]) => `${dialect} (${uri})`)
      .join(', ')} are checked; any other "$schema" is a warning. inputSchema must have "type": "object".`,
    `- **Descriptions and annotations**: tools and prompts without a description are warnings; resources, templates and arguments without one are suggestions, as are descriptions over ${number(LONG_DESCRIPTION)} characters. A tool without any of readOnlyHint, destructiveHint, idempotentHint, openWorldHint is a warning, one with some missing a suggestion (destructiveHint and idempotentHint only count for a tool that is not read-only).`,
  ];
}

/** One server's report as a Markdown document (headings from `#`, or deeper with `depth`). */
export function formatReportMarkdown(report: ServerReport, depth = 1): string {
  const h = (level: number) => '#'.repeat(level + depth - 1);
  const { counts, tokens } = report;
  const lines: string[] = [
    `${h(1)} Server report: ${plain(report.server.name)}`,
    '',
    summaryLine(report),
    '',
    '| | |',
    '|---|---|',
    `| Server | ${serverLine(report)} |`,
    `| Protocol | ${cell(report.server.protocolVersion ?? 'unknown')} |`,
    `| Tools | ${counts.tools} |`,
    `| Tool definitions | ${number(tokens.characters)} characters, about ${number(tokens.tokens)} tokens (characters / ${CHARACTERS_PER_TOKEN}) |`,
    `| Prompts | ${counts.prompts} |`,
    `| Resources | ${counts.resources} |`,
    `| Resource templates | ${counts.resourceTemplates} |`,
    '',
  ];
  if (report.largestTools.length > 0) {
    lines.push(`${h(2)} Largest tools`, '', '| Tool | Characters | Tokens (estimated) | Share |', '|---|---:|---:|---:|');
    for (const tool of report.largestTools) {
      const share = tokens.characters > 0 ? `${Math.round((tool.characters / tokens.characters) * 100)}%` : '–';
      lines.push(`| ${code(tool.name).replace(/\|/g, '\\|')} | ${number(tool.characters)} | ${number(tool.tokens)} | ${share} |`);
    }
    lines.push('');
  }
  lines.push(`${h(2)} Findings (${report.findings.length})`, '');
  if (report.findings.length === 0) lines.push('Nothing to change: every check passed.', '');
  for (const [severity, heading] of SEVERITY_HEADINGS) {
    const findings = report.findings.filter((f) => f.severity === severity);
    if (findings.length === 0) continue;
    lines.push(`${h(3)} ${heading} (${findings.length})`, '', ...findings.flatMap(findingLines), '');
  }
  if (depth === 1) lines.push(...methodSection(), '');
  return lines.join('\n');
}

/** A server that could not be reported on (it did not start). */
export interface UnreportedServer {
  name: string;
  reason: string;
}

/** Several servers that run together: an overview, then each server's report. */
export function formatReportsMarkdown(reports: readonly ServerReport[], unreported: readonly UnreportedServer[] = []): string {
  if (reports.length === 1 && unreported.length === 0) return formatReportMarkdown(reports[0]);
  const count = reports.length + unreported.length;
  const lines: string[] = [
    `# Server report: ${count} server${count === 1 ? '' : 's'}`,
    '',
    'Duplicate tool names are checked across all of these servers: they run together.',
    '',
    '| Server | Grade | Tools | Tokens (estimated) | Errors | Warnings | Suggestions |',
    '|---|:-:|---:|---:|---:|---:|---:|',
    ...reports.map((r) => `| ${cell(r.server.name)} | ${r.grade} | ${r.counts.tools} | ${number(r.tokens.tokens)} | ${r.summary.errors} | ${r.summary.warnings} | ${r.summary.infos} |`),
    ...unreported.map((u) => `| ${cell(u.name)} | – | – | – | not reported: ${cell(u.reason)} | | |`),
    '',
  ];
  for (const report of reports) lines.push(formatReportMarkdown(report, 2));
  lines.push(...methodSection(), '');
  return lines.join('\n');
}
