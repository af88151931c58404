// The server quality report as a value: what the checks find, and how a grade is made from it.
// No `vscode` here: the editor, the CLI and the unit tests share it.
import type { Implementation, Prompt, Resource, ResourceTemplate, Tool } from '../../protocol/schemas';

export type Severity = 'error' | 'warning' | 'info';

/**
 * What a finding is about. 'server': one of this server's requests (a list that failed);
 * 'size': the server as a whole (its tool count, its definitions' cost); 'peer': another server running beside it.
 */
export type SubjectKind = 'server' | 'size' | 'peer' | 'tool' | 'prompt' | 'resource' | 'template';

export type RuleId =
  | 'list-failed'
  | 'tool-name-length'
  | 'tool-name-characters'
  | 'tool-name-duplicate'
  | 'tool-name-shared-with-peer'
  | 'input-schema-not-object'
  | 'output-schema-not-object'
  | 'schema-invalid'
  | 'schema-dialect-unknown'
  | 'schema-pattern-unchecked'
  | 'tool-description-missing'
  | 'tool-description-long'
  | 'tool-annotations-missing'
  | 'tool-count-high'
  | 'tool-definitions-large'
  | 'tool-argument-description-missing'
  | 'prompt-description-missing'
  | 'prompt-argument-description-missing'
  | 'resource-description-missing'
  | 'template-description-missing';

export interface Finding {
  severity: Severity;
  subject: { kind: SubjectKind; name: string };
  rule: RuleId;
  /** What is wrong. */
  message: string;
  /** What to change. */
  fix: string;
}

/** What the report is made from: one running server's lists, and the servers running beside it. */
export interface ReportInput {
  server: { name: string; serverInfo?: Implementation; protocolVersion?: string };
  lists: {
    tools: readonly Tool[];
    prompts: readonly Prompt[];
    resources: readonly Resource[];
    resourceTemplates: readonly ResourceTemplate[];
    /** Lists that failed to load, with why. */
    errors?: Partial<Record<'tools' | 'prompts' | 'resources' | 'resourceTemplates', string>>;
  };
  /** The other servers that run together with this one (a model sees all their tools at once). */
  peers: ReadonlyArray<{ name: string; tools: ReadonlyArray<{ name: string }> }>;
}

/** What one tool's definition costs a model, estimated. */
export interface ToolCost {
  name: string;
  characters: number;
  tokens: number;
}

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

export interface ServerReport {
  /** name: as configured; implementation: the name the server gives itself (serverInfo.name). */
  server: { name: string; implementation?: string; title?: string; version?: string; protocolVersion?: string };
  counts: { tools: number; prompts: number; resources: number; resourceTemplates: number };
  tokens: { characters: number; tokens: number; perTool: ToolCost[] };
  /** The costliest tools, most expensive first. */
  largestTools: ToolCost[];
  findings: Finding[];
  summary: { errors: number; warnings: number; infos: number };
  score: number;
  grade: Grade;
}

/** Points a finding takes off the score of 100; infos take 10 points at most, together. */
export const PENALTY: Readonly<Record<Severity, number>> = { error: 20, warning: 5, info: 1 };
export const MAX_INFO_PENALTY = 10;
/** The lowest score of each grade; below the last one, F. */
export const GRADE_FLOORS: ReadonlyArray<readonly [Grade, number]> = [
  ['A', 90],
  ['B', 80],
  ['C', 70],
  ['D', 60],
];

export function summarise(findings: readonly Finding[]): ServerReport['summary'] {
  const count = (severity: Severity) => findings.filter((f) => f.severity === severity).length;
  return { errors: count('error'), warnings: count('warning'), infos: count('info') };
}

/** 100, less 20 per error, 5 per warning and 1 per info (infos at most 10 in all); never below 0. */
export function scoreOf(summary: ServerReport['summary']): number {
  const penalty = summary.errors * PENALTY.error + summary.warnings * PENALTY.warning + Math.min(MAX_INFO_PENALTY, summary.infos * PENALTY.info);
  return Math.max(0, 100 - penalty);
}

/**
 * Missing annotations take this many points at most, together: they make a client ask before a
 * call, but do not keep a model from choosing and calling tools well, as size and broken schemas do.
 */
export const ANNOTATIONS_MAX_PENALTY = 15;

/** The score of a report's findings: scoreOf, with missing annotations weighing ANNOTATIONS_MAX_PENALTY at most. */
export function scoreOfFindings(findings: readonly Finding[]): number {
  const annotations = findings.filter((f) => f.rule === 'tool-annotations-missing');
  const others = summarise(findings.filter((f) => f.rule !== 'tool-annotations-missing'));
  const annotationPenalty = Math.min(ANNOTATIONS_MAX_PENALTY, annotations.reduce((sum, f) => sum + PENALTY[f.severity], 0));
  return Math.max(0, scoreOf(others) - annotationPenalty);
}

export function gradeOf(score: number): Grade {
  return GRADE_FLOORS.find(([, floor]) => score >= floor)?.[0] ?? 'F';
}

const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };

/** Errors first, then warnings, then infos; in the order the server lists its items within each. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => SEVERITY_ORDER[a.finding.severity] - SEVERITY_ORDER[b.finding.severity] || a.index - b.index)
    .map(({ finding }) => finding);
}
