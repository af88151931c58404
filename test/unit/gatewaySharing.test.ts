import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { isToolDisabled, readShareSetting, shareDecision } from '../../src/host/gateway/sharing';
import { checkRequestHeaders } from '../../src/host/gateway/guard';
import type { ConfigSource } from '../../src/host/config';

const vscodeFile: ConfigSource = { file: path.join('/w', '.vscode', 'mcp.json'), kind: 'workspace', workspaceFolder: '/w' };
const userFile: ConfigSource = { file: 'settings:mcpHost.servers', kind: 'user' };

test('nothing is shared by default; "all" leaves out what VS Code defines itself; a name shares even that', () => {
  assert.equal(shareDecision(readShareSetting(undefined), { name: 'a', source: userFile }), 'not-shared');
  assert.equal(shareDecision(readShareSetting('bogus'), { name: 'a', source: userFile }), 'not-shared');
  assert.equal(shareDecision(readShareSetting('all'), { name: 'a', source: userFile }), 'shared');
  assert.equal(shareDecision(readShareSetting('all'), { name: 'a', source: vscodeFile }), 'defined-by-vscode');
  assert.equal(shareDecision(readShareSetting(['a']), { name: 'a', source: vscodeFile }), 'shared');
  assert.equal(shareDecision(readShareSetting(['a']), { name: 'b', source: userFile }), 'not-shared');
});

test('mcpHost.tools.disabled: a server or one server/tool', () => {
  assert.equal(isToolDisabled(['fs'], 'fs', 'write'), true);
  assert.equal(isToolDisabled(['fs/write'], 'fs', 'write'), true);
  assert.equal(isToolDisabled(['fs/write'], 'fs', 'read'), false);
  assert.equal(isToolDisabled(['fs/write'], 'fsx', 'write'), false);
  assert.equal(isToolDisabled('fs', 'fs', 'write'), false);
});

test('the gateway refuses a missing or wrong token (401), a foreign Origin or Host (403)', () => {
  const ok = { host: '127.0.0.1:5000', authorization: 'Bearer secret-token-123456' };
  assert.equal(checkRequestHeaders(ok, 5000, 'secret-token-123456'), undefined);
  assert.equal(checkRequestHeaders({ ...ok, host: 'localhost:5000', origin: 'http://127.0.0.1:9' }, 5000, 'secret-token-123456'), undefined);
  assert.equal(checkRequestHeaders({ host: ok.host }, 5000, 'secret-token-123456')?.status, 401);
  assert.equal(checkRequestHeaders({ ...ok, authorization: 'Bearer secret-token-12345' }, 5000, 'secret-token-123456')?.status, 401);
  assert.equal(checkRequestHeaders({ ...ok, origin: 'https://evil.example' }, 5000, 'secret-token-123456')?.status, 403);
  assert.equal(checkRequestHeaders({ ...ok, origin: 'null' }, 5000, 'secret-token-123456')?.status, 403);
  assert.equal(checkRequestHeaders({ ...ok, host: 'evil.example:5000' }, 5000, 'secret-token-123456')?.status, 403);
  assert.equal(checkRequestHeaders({ ...ok, host: '127.0.0.1:5001' }, 5000, 'secret-token-123456')?.status, 403);
});
