import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Commands, InternalCommands } from '../../src/vscode/commandIds';

// Compiled to out/test/unit: the repository root is three folders up.
const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { commands: Array<{ command: string }> };
};

test('every command contributed in package.json is in Commands, and every Commands id is contributed', () => {
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  const named = Object.values(Commands).sort();
  assert.deepEqual(named, contributed);
});

test('command ids are unique, and internal ones are not contributed', () => {
  const all = [...Object.values(Commands), ...Object.values(InternalCommands)];
  assert.equal(new Set(all).size, all.length);
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  for (const id of Object.values(InternalCommands)) assert.ok(!contributed.has(id), `${id} is internal`);
});
