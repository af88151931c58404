import type { CheckStatus, DoctorReport } from './types';

export const STATUS_MARK: Record<CheckStatus, string> = { pass: '✔', fail: '✖', warn: '⚠', skip: '–' };

const VERDICT_TEXT: Record<DoctorReport['verdict'], string> = { pass: 'healthy', warn: 'works, with warnings', fail: 'fails' };

/** The report as terminal text: a checklist, each failed line followed by its fix. */
export function formatReportText(report: DoctorReport): string {
  const lines = [`${STATUS_MARK[report.verdict]} ${report.server} (${report.transport}, ${report.source}): ${VERDICT_TEXT[report.verdict]}`];
  for (const check of report.checks) {
    lines.push(`  ${STATUS_MARK[check.status]} ${check.title}: ${check.detail}`);
    if (check.fix && check.status !== 'pass') lines.push(`      fix: ${check.fix}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Markdown's own characters in a text that is not meant as Markdown. */
function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>#|~])/g, '\\$1');
}

/** The report as a Markdown document (the editor's preview). */
export function formatReportMarkdown(report: DoctorReport): string {
  const out = [
    `# Diagnosis of "${escapeMarkdown(report.server)}"`,
    '',
    `**Verdict: ${STATUS_MARK[report.verdict]} ${VERDICT_TEXT[report.verdict]}.** ${escapeMarkdown(report.summary)}`,
    '',
    `Transport: ${report.transport} · Configuration: ${escapeMarkdown(report.source)}`,
    '',
  ];
  for (const check of report.checks) {
    out.push(`- ${STATUS_MARK[check.status]} **${escapeMarkdown(check.title)}** — ${escapeMarkdown(check.detail)}`);
    if (check.fix && check.status !== 'pass') out.push(`  - **Fix:** ${escapeMarkdown(check.fix)}`);
  }
  out.push('', `✔ passed · ✖ failed · ⚠ warning · – skipped`, '');
  return out.join('\n');
}
