import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/**
 * Entry point VS Code's extension host calls for --extensionTestsPath. Runs every
 * *.test.js beside this file (or those named in MCP_HOST_TEST_FILES) with mocha,
 * then prints "N passed, N failed" for the outer runner.
 */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: 'spec' });
  const only = process.env.MCP_HOST_TEST_FILES?.split(',').filter(Boolean);
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (!file.endsWith('.test.js')) continue;
    if (only && !only.some((o) => file.startsWith(o))) continue;
    mocha.addFile(path.join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const stats = runner.stats;
      console.log(`${stats?.passes ?? 0} passed, ${failures} failed`);
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
  });
}
