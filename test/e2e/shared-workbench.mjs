#!/usr/bin/env node
// Runs browser end-to-end scenarios one after the other in one VS Code and one workbench, cleared
// between them (see scenariosInOneWorkbench in lib.mjs): each file registers its scenario instead
// of starting its own VS Code. The workbench gets the settings of every scenario (a user-level
// server, a registry, AI features): two that set one key differently cannot share it, and each
// runs with the others' too (on 1.139 the insight and registry screenshots then show VS Code's chat
// controls, which share turns on). A file that writes into the demo workspace puts it back when its
// scenario ends (its try/finally, or the scenario's `after`).
//   node test/e2e/shared-workbench.mjs --flavour old|new tree.e2e.mjs resource.e2e.mjs ...
import { flavourFromArgs, scenariosInOneWorkbench } from './lib.mjs';

const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.e2e.mjs') && all[i - 1] !== '--flavour');
if (files.length === 0) {
  console.error('usage: node test/e2e/shared-workbench.mjs --flavour old|new FILE.e2e.mjs...');
  process.exit(2);
}
const scenarios = (globalThis.mcpHostE2eScenarios = []);
let notLoaded = 0;
const settings = {};

/** Adds a scenario's settings to the workbench's; throws if it sets a key another set otherwise. */
function addSettings(own) {
  for (const [key, value] of Object.entries(own)) {
    if (key in settings && JSON.stringify(settings[key]) !== JSON.stringify(value)) {
      throw new Error(`it sets ${key} to ${JSON.stringify(value)}, another file to ${JSON.stringify(settings[key])}; run it alone`);
    }
  }
  Object.assign(settings, own);
}
for (const file of files) {
  const before = scenarios.length;
  try {
    await import(new URL(file, import.meta.url).href);
    if (scenarios.length !== before + 1) throw new Error(`it registered ${scenarios.length - before} scenarios, not one`);
    addSettings(scenarios[before].options.settings ?? {});
  } catch (err) {
    // The others still run.
    scenarios.length = before;
    notLoaded++;
    console.log(`  ✖ ${file}: could not be run in the shared workbench: ${err?.stack ?? err}`);
  }
}
await scenariosInOneWorkbench(scenarios, flavourFromArgs(), { failedBefore: notLoaded, settings });
