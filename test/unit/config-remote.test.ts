import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText, formatProblem, type ConfigSource, type HttpServerDefinition } from '../../src/host/config';
import { describeLaunch } from '../../src/host/transportFactory';
import { displayUrl } from '../../src/util/displayUrl';

const source: ConfigSource = { file: '/w/.vscode/mcp.json', kind: 'workspace', workspaceFolder: '/w' };

function onlyServer(text: string): HttpServerDefinition {
  const parsed = parseConfigText(text, source);
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.servers.length, 1);
  const server = parsed.servers[0];
  assert.notEqual(server.type, 'stdio');
  return server as HttpServerDefinition;
}

function onlyProblem(text: string) {
  const parsed = parseConfigText(text, source);
  assert.equal(parsed.servers.length, 0, 'the bad entry is not used');
  assert.equal(parsed.problems.length, 1);
  return parsed.problems[0];
}

describe('remote server entries', () => {
  test('VS Code shape: type, url, headers with variables, and a pre-registered OAuth client', () => {
    const server = onlyServer(`{
      "servers": {
        "github": {
          "type": "http",
          "url": "https://api.example.com/mcp/",
          "headers": { "X-Api-Key": "\${input:key}", "X-Org": "\${env:ORG}" },
          "oauth": { "clientId": "abc", "clientSecret": "\${input:secret}", "scopes": ["repo", "read:org"] }
        }
      },
      "inputs": [{ "id": "key", "type": "promptString", "password": true }, { "id": "secret", "type": "promptString", "password": true }]
    }`);
    assert.equal(server.type, 'http');
    assert.equal(server.url, 'https://api.example.com/mcp/');
    assert.deepEqual(server.headers, { 'X-Api-Key': '${input:key}', 'X-Org': '${env:ORG}' });
    assert.deepEqual(server.oauth, { clientId: 'abc', clientSecret: '${input:secret}', scopes: ['repo', 'read:org'] });
  });

  test("Windsurf's serverUrl is read as url", () => {
    const server = onlyServer(JSON.stringify({ mcpServers: { w: { serverUrl: 'https://w.example/mcp' } } }));
    assert.equal(server.type, 'http');
    assert.equal(server.url, 'https://w.example/mcp');
  });

  test('type sse keeps the legacy transport', () => {
    assert.equal(onlyServer(JSON.stringify({ servers: { s: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } })).type, 'sse');
  });

  test('a URL that is not http(s) names the field and the line', () => {
    const problem = onlyProblem('{\n  "servers": {\n    "bad": {\n      "type": "http",\n      "url": "ftp://example.com/mcp"\n    }\n  }\n}');
    assert.equal(problem.server, 'bad');
    assert.equal(problem.field, 'servers.bad.url');
    assert.equal(problem.line, 5);
    assert.match(problem.message, /http:\/\/ or https:\/\//);
    assert.match(formatProblem(problem), /^\/w\/\.vscode\/mcp\.json:5: /);
  });

  test('a typed http entry without url says what to add', () => {
    const problem = onlyProblem(JSON.stringify({ servers: { r: { type: 'http' } } }));
    assert.equal(problem.field, 'servers.r.url');
    assert.match(problem.message, /no "url"/);
  });

  test('header names must be HTTP tokens and values single-line strings', () => {
    assert.match(onlyProblem(JSON.stringify({ servers: { r: { url: 'https://x.example/mcp', headers: { 'Bad Name': 'v' } } } })).message, /header name/);
    assert.match(onlyProblem(JSON.stringify({ servers: { r: { url: 'https://x.example/mcp', headers: { A: 'x\r\nInjected: 1' } } } })).message, /line break/);
    const numeric = onlyProblem(JSON.stringify({ servers: { r: { url: 'https://x.example/mcp', headers: { A: 5 } } } }));
    assert.match(numeric.message, /strings/);
    assert.match(numeric.field ?? '', /^servers\.r\.headers/);
  });

  test('oauth needs a clientId', () => {
    const problem = onlyProblem(JSON.stringify({ servers: { r: { url: 'https://x.example/mcp', oauth: { clientSecret: 's' } } } }));
    assert.match(problem.field ?? '', /^servers\.r\.oauth/);
  });

  test('a log line about a launch never shows credentials in the URL', () => {
    assert.equal(displayUrl('https://user:pa55word@x.example/mcp'), 'https://x.example/mcp');
    const line = describeLaunch({ type: 'http', url: 'https://user:pa55word@x.example/mcp', headers: { Authorization: 'Bearer sekrit' } });
    assert.doesNotMatch(line, /pa55word|sekrit/);
    assert.match(line, /^HTTP https:\/\/x\.example\/mcp$/);
  });
});
