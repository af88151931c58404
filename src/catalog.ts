// What Browse Servers… and Check for Updates need of the MCP-registry catalog: a bundle of its
// own (dist/catalog.js), loaded the first time a person browses a registry or checks for updates,
// so the extension's own bundle stays small. Load it through host/loadCatalog.ts. (Where an
// entry came from, host/catalog/provenance.ts, is read with every configuration and stays inline.)
export { RegistryClient, RegistryError, readRegistrySettings, registryClient, suggestEntryName, transportsOf } from './host/catalog';
export { AddCancelled, buildEntry, installOptions, needsOf } from './host/catalog/toEntry';
export { addEntryToText, configuredNames, distinctInputs, distinctInputsInText, entryNameProblem, replaceEntryInText } from './host/catalog/configEdit';
export { LAUNCHER_REQUESTS_RISK, launcherRequestsHeadline } from './host/catalog/launcherRequests';
