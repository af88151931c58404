#!/usr/bin/env node
// Runs browser end-to-end scenarios that need the same settings one after the other in one VS Code
// and one workbench, cleared between them (see scenariosInOneWorkbench in lib.mjs): each file
// registers its scenario instead of starting its own VS Code.
//   node test/e2e/shared-workbench.mjs --flavour old|new tree.e2e.mjs resource.e2e.mjs ...
import { flavourFromArgs, scenariosInOneWorkbench } from './lib.mjs';

const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.e2e.mjs') && all[i - 1] !== '--flavour');
if (files.length === 0) {
  console.error('usage: node test/e2e/shared-workbench.mjs --flavour old|new FILE.e2e.mjs...');
  process.exit(2);
}
const scenarios = (globalThis.mcpHostE2eScenarios = []);
for (const file of files) {
  const before = scenarios.length;
  await import(new URL(file, import.meta.url).href);
  if (scenarios.length !== before + 1) throw new Error(`${file} registered ${scenarios.length - before} scenarios, not one`);
  if (scenarios.at(-1).options.settings) throw new Error(`${file} needs settings of its own; run it alone`);
}
await scenariosInOneWorkbench(scenarios, flavourFromArgs());
