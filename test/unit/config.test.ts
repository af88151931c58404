import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { firstSyntaxErrorLine, parseConfigText, formatProblem, type ConfigSource } from '../../src/host/config';

const source: ConfigSource = { file: '/w/.vscode/mcp.json', kind: 'workspace', workspaceFolder: '/w' };

describe('parseConfigText', () => {
  test('reads VS Code mcp.json with comments and trailing commas', () => {
    const text = `{
      // my servers
      "servers": {
        "everything": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], },
        "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
      },
      "inputs": [ { "id": "token", "type": "promptString", "password": true, "description": "API token" } ],
    }`;
    const parsed = parseConfigText(text, source);
    assert.deepEqual(parsed.problems, []);
    assert.equal(parsed.servers.length, 2);
    const [stdio, http] = parsed.servers;
    assert.equal(stdio.type, 'stdio');
    assert.equal(stdio.type === 'stdio' && stdio.command, 'npx');
    assert.deepEqual(stdio.type === 'stdio' && stdio.args, ['-y', '@modelcontextprotocol/server-everything']);
    assert.equal(http.type, 'http');
    assert.equal(parsed.inputs[0].id, 'token');
    assert.equal(parsed.inputs[0].password, true);
  });

  test('reads the mcpServers format and normalises transport names', () => {
    const text = JSON.stringify({
      mcpServers: {
        a: { command: 'node', args: ['a.js'], env: { DEBUG: '1', PORT: 8080, UNSET: null } },
        b: { type: 'streamable-http', url: 'http://localhost:1/mcp' },
        c: { type: 'streamableHttp', url: 'http://localhost:2/mcp' },
        d: { type: 'sse', url: 'http://localhost:3/sse' },
        e: { url: 'http://localhost:4/mcp' },
      },
    });
    const parsed = parseConfigText(text, source);
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(parsed.servers.map((s) => s.type), ['stdio', 'http', 'http', 'sse', 'http']);
    const a = parsed.servers[0];
    assert.deepEqual(a.type === 'stdio' && a.env, { DEBUG: '1', PORT: '8080', UNSET: null });
  });

  test('a bad entry names file, server, field and line; good entries survive', () => {
    const text = [
      '{',
      '  "servers": {',
      '    "good": { "command": "node" },',
      '    "noCommand": { "type": "stdio", "args": [] },',
      '    "badArgs": {',
      '      "command": "node",',
      '      "args": "--flag"',
      '    },',
      '    "weird": { "type": "carrier-pigeon", "command": "x" },',
      '    "empty": {}',
      '  }',
      '}',
    ].join('\n');
    const parsed = parseConfigText(text, source);
    assert.deepEqual(parsed.servers.map((s) => s.name), ['good']);
    const byServer = new Map(parsed.problems.map((p) => [p.server, p]));
    const noCommand = byServer.get('noCommand')!;
    assert.equal(noCommand.line, 4);
    assert.match(noCommand.message, /no "command"/);
    const badArgs = byServer.get('badArgs')!;
    assert.equal(badArgs.field, 'servers.badArgs.args');
    assert.equal(badArgs.line, 7);
    assert.match(badArgs.message, /array of strings/);
    assert.match(byServer.get('weird')!.message, /unknown "type" "carrier-pigeon"/);
    assert.match(byServer.get('empty')!.message, /neither "command".*nor "url"/);
    assert.match(formatProblem(badArgs), /^\/w\/\.vscode\/mcp\.json:7: /);
  });

  test('a JSON syntax error gives the line and reads no servers', () => {
    const parsed = parseConfigText('{\n  "servers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}', source);
    assert.equal(parsed.servers.length, 0);
    assert.equal(parsed.problems[0].line, 4);
    assert.match(parsed.problems[0].message, /comma expected/);
  });

  test('a JSON syntax error with the last readable text given keeps its servers and inputs, and says so', () => {
    const good = parseConfigText('{ "servers": { "a": { "command": "x" } }, "inputs": [{ "id": "k", "type": "promptString" }] }', source);
    assert.equal(good.unreadable, undefined);
    // A save half-way through an edit, or a read while another program writes the file.
    const broken = parseConfigText('{ "servers": { "a": { "command": "x" } }, "inputs": [{ "id": "k", ', source, good);
    assert.equal(broken.unreadable, true);
    assert.deepEqual(broken.servers.map((s) => s.name), ['a']);
    assert.deepEqual(broken.inputs.map((i) => i.id), ['k']);
    assert.match(broken.problems[0].message, /^JSON syntax error: .*its servers keep running as configured at its last valid save/);
    const empty = parseConfigText('', source, good);
    assert.equal(empty.unreadable, true, 'an empty text (a file read right after it was truncated) is no JSON');
    assert.deepEqual(empty.servers.map((s) => s.name), ['a']);
    // A last valid save without servers has nothing to keep running: the message says so.
    const none = parseConfigText('{ "servers": ', source, parseConfigText('{}', source));
    assert.match(none.problems[0].message, /cannot start until then/);
    assert.equal(firstSyntaxErrorLine('{\n  "servers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}'), 4);
    assert.equal(firstSyntaxErrorLine('{ "servers": {} } // comment'), undefined);
    // Without one: nothing, as before.
    const alone = parseConfigText('{ "servers": { "a": ', source);
    assert.deepEqual([alone.servers.length, alone.unreadable], [0, true]);
    assert.match(alone.problems[0].message, /cannot start until then/);
  });

  test('an empty object or empty file is not an error', () => {
    assert.deepEqual(parseConfigText('{}', source).problems, []);
    assert.deepEqual(parseConfigText('{ "servers": {} }', source).problems, []);
  });

  test('a file of another shape says so', () => {
    const parsed = parseConfigText('{"something": 1}', source);
    assert.match(parsed.problems[0].message, /No "servers"/);
  });
});
