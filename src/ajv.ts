// The JSON Schema validator (Ajv with its formats) and the linear-time regular expressions its
// patterns run on (re2js): a bundle of their own (dist/ajv.js), loaded the first time a schema is
// checked, so the extension's own bundle stays small. Load it through host/ajvBundle.ts.
export { default as Ajv2020 } from 'ajv/dist/2020';
export { default as Ajv2019 } from 'ajv/dist/2019';
export { default as Ajv07 } from 'ajv';
export { default as addFormats } from 'ajv-formats';
export { linearRegExp, linearRegExpEngine, uncheckedSchemaPatterns, describeUnchecked, UnsupportedPatternError } from './util/linearRegExp';
