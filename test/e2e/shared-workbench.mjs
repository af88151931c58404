#!/usr/bin/env node
// Runs browser end-to-end scenarios that need the same settings one after the other in one VS Code
// and one workbench, cleared between them (see scenariosInOneWorkbench in lib.mjs): each file
// registers its scenario instead of starting its own VS Code. A file shares the workbench only if
// it brings no settings of its own and writes nothing into the demo workspace.
//   node test/e2e/shared-workbench.mjs --flavour old|new tree.e2e.mjs resource.e2e.mjs ...
import { flavourFromArgs, scenariosInOneWorkbench } from './lib.mjs';

const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.e2e.mjs') && all[i - 1] !== '--flavour');
if (files.length === 0) {
  console.error('usage: node test/e2e/shared-workbench.mjs --flavour old|new FILE.e2e.mjs...');
  process.exit(2);
}
const scenarios = (globalThis.mcpHostE2eScenarios = []);
let notLoaded = 0;
for (const file of files) {
  const before = scenarios.length;
  try {
    await import(new URL(file, import.meta.url).href);
    if (scenarios.length !== before + 1) throw new Error(`it registered ${scenarios.length - before} scenarios, not one`);
    if (scenarios[before].options.settings) throw new Error('it brings settings of its own; run it alone');
  } catch (err) {
    // The others still run.
    scenarios.length = before;
    notLoaded++;
    console.log(`  ✖ ${file}: could not be run in the shared workbench: ${err?.stack ?? err}`);
  }
}
await scenariosInOneWorkbench(scenarios, flavourFromArgs(), notLoaded);
