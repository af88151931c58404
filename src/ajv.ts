// The JSON Schema validator (Ajv with its formats): a bundle of its own (dist/ajv.js), loaded the
// first time a tool's arguments are checked, so the extension's own bundle stays small.
// Load it through vscode/webview/validation.ts (or, for the server report, host/report/schemaValidity.ts).
export { default as Ajv2020 } from 'ajv/dist/2020';
export { default as Ajv2019 } from 'ajv/dist/2019';
export { default as Ajv07 } from 'ajv';
export { default as addFormats } from 'ajv-formats';
