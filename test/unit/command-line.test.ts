import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitCommandLine, suggestNameFromCommand } from '../../src/host/commandLine';

test('splitCommandLine honours quotes and keeps empty quoted words', () => {
  assert.deepEqual(splitCommandLine(`node "/a b/server.js" --flag 'x y' ""`), ['node', '/a b/server.js', '--flag', 'x y', '']);
  assert.deepEqual(splitCommandLine('  uvx   mcp-server-fetch  '), ['uvx', 'mcp-server-fetch']);
  assert.deepEqual(splitCommandLine(''), []);
});

test('suggestNameFromCommand names the script or package, not the interpreter', () => {
  assert.equal(suggestNameFromCommand('node', ['/x/good-server.mjs']), 'good-server');
  assert.equal(suggestNameFromCommand('npx', ['-y', '@modelcontextprotocol/server-memory@1.2']), 'server-memory');
  assert.equal(suggestNameFromCommand('python3', ['-m', 'weather']), 'weather');
  assert.equal(suggestNameFromCommand('docker', ['run', '-i', 'mcp/fetch']), 'fetch');
  assert.equal(suggestNameFromCommand('/usr/local/bin/my-server', []), 'my-server');
  assert.equal(suggestNameFromCommand('node', []), 'node');
});
