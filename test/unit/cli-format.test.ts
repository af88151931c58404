import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { closestNames, serverNameFromCommand, unknownNameHint } from '../../src/cli/names';
import { formatToolResult } from '../../src/cli/format';
import { printable } from '../../src/cli/printable';

describe('the CLI names a server by what it runs', () => {
  const cases: Array<[string, string[], string]> = [
    ['npx', ['-y', '@scope/pkg'], '@scope/pkg'],
    ['npx', ['-y', '@modelcontextprotocol/server-memory@latest', '--flag'], '@modelcontextprotocol/server-memory'],
    ['/usr/bin/npx', ['mcp-server-x@1.2.3'], 'mcp-server-x'],
    ['uvx', ['pkg'], 'pkg'],
    ['uvx', ['mcp-server-fetch==2025.1'], 'mcp-server-fetch'],
    ['uv', ['tool', 'run', 'pkg'], 'pkg'],
    ['npm', ['exec', '-y', 'some-server'], 'some-server'],
    ['pnpm', ['dlx', '@a/b'], '@a/b'],
    ['node', ['path/x.js'], 'x.js'],
    ['/opt/node/bin/node', ['--enable-source-maps', '/srv/dist/index.js', 'stdio'], 'index.js'],
    ['python3', ['-m', 'my_server'], 'my_server'],
    ['deno', ['run', '-A', 'server.ts'], 'server.ts'],
    ['my-server', ['--port', '3'], 'my-server'],
    ['C:\\tools\\npx.cmd', ['-y', 'pkg'], 'pkg'],
  ];
  for (const [command, args, expected] of cases) {
    test(`${command} ${args.join(' ')} -> ${expected}`, () => assert.equal(serverNameFromCommand(command, args), expected));
  }
});

describe('did you mean', () => {
  test('close names first, distant ones not at all', () => {
    assert.deepEqual(closestNames('ech', ['echo', 'add', 'fail']), ['echo']);
    assert.deepEqual(closestNames('get-sun', ['get-sum', 'get-env', 'echo']), ['get-sum']);
    assert.deepEqual(closestNames('list', ['list_directory', 'echo']), ['list_directory']);
    assert.deepEqual(closestNames('zzzzzz', ['echo', 'add']), []);
  });
  test('without a close name, the hint lists what exists', () => {
    assert.equal(unknownNameHint('tool', 'zzzzzz', ['echo', 'add']), 'its tools: echo, add');
    assert.equal(unknownNameHint('prompt', 'x', []), 'the server has no prompts');
  });
});

describe('tool results', () => {
  test('structured content is printed when no text block holds it', () => {
    const text = formatToolResult({ content: [{ type: 'text', text: 'The sum is 5.' }], structuredContent: { sum: 5 } });
    assert.equal(text, 'The sum is 5.\nstructuredContent:\n{\n  "sum": 5\n}\n');
  });
  test('structured content is printed once when a text block holds the same JSON (any formatting)', () => {
    const text = formatToolResult({ content: [{ type: 'text', text: '{ "sum" : 5 }' }], structuredContent: { sum: 5 } });
    assert.equal(text, '{ "sum" : 5 }\n');
  });
});

describe('what the CLI prints', () => {
  test('no control characters, and no invisible ones that reorder or disguise text (bidirectional controls, zero-width characters, the byte-order mark)', () => {
    assert.equal(printable('a\u001b]0;title\u0007b\u009b31m\tc\n'), 'a]0;titleb31m\tc\n');
    assert.equal(printable('\ufeffname: \u202egnp.exe\u202c \u2066x\u2069 wea\u200bther\u200e\u200f\u202a\u202b\u202d\u2067\u2068\u061c'), 'name: gnp.exe x weather');
    // The joiners stay: emoji sequences and Persian or Indic text need them.
    assert.equal(printable('\u{1F469}\u200d\u{1F4BB} \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'), '\u{1F469}\u200d\u{1F4BB} \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645');
    assert.equal(printable('العربية עברית 日本語 ✓'), 'العربية עברית 日本語 ✓', 'text in any script stays');
  });
});
