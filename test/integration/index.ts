import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/**
 * Entry point VS Code's extension host calls for --extensionTestsPath. Runs every
 * *.test.js beside this file (or those named in MCP_HOST_TEST_FILES) with mocha,
 * then prints "N passed, N failed" for the outer runner.
 */
/** Test files that only run in a VS Code started for them: untrusted, multi-root, the installed VSIX. */
const DEDICATED_RUNS = ['untrusted', 'requests-roots', 'installed'];

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: 'spec' });
  const only = process.env.MCP_HOST_TEST_FILES?.split(',').filter(Boolean);
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (!file.endsWith('.test.js')) continue;
    if (only && !only.some((o) => file.startsWith(o))) continue;
    // These need a VS Code started for them (scripts/test-vscode.mjs has a run of each): loaded
    // elsewhere they would only be skipped.
    if (!only && DEDICATED_RUNS.some((d) => file.startsWith(d))) continue;
    mocha.addFile(path.join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    const skipped: string[] = [];
    const failing: string[] = [];
    const runner = mocha.run((failures) => {
      const stats = runner.stats;
      // One line per failure, so the summary at the very end of `npm test` names it.
      for (const f of failing) console.log(`Failing: ${f}`);
      if (skipped.length > 0) console.log(`Skipped: ${skipped.join('; ')}`);
      console.log(`${stats?.passes ?? 0} passed, ${failures} failed, ${skipped.length} skipped`);
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
    runner.on('pending', (test) => skipped.push(test.fullTitle()));
    runner.on('fail', (test, err: unknown) => failing.push(`${test.fullTitle()}: ${firstLine(err)}`));
  });
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split('\n', 1)[0];
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
