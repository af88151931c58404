// What the doctor and the server report need: a bundle of its own (dist/inspect.js), loaded the
// first time a person diagnoses a server or asks for its report, so the extension's own bundle
// stays small. Load it through host/loadInspect.ts.
export { diagnoseServer, formatReportMarkdown as formatDiagnosisMarkdown } from './host/doctor';
export { readLoginShellPath } from './host/doctor/commandLookup';
export { reportOnServer, formatReportMarkdown as formatServerReportMarkdown } from './host/report';
