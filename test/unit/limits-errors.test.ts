import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { LineDecoder, oversizeNotice } from '../../src/transport/framing';
import { UnsupportedProtocolVersionError, describeStderr } from '../../src/protocol/errors';
import { MissingClientCapabilityError } from '../../src/protocol/era';
import type { TransportWarning } from '../../src/transport/transport';

function decoder(limit: number) {
  const warnings: TransportWarning[] = [];
  const messages: unknown[] = [];
  const d = new LineDecoder({ maxMessageBytes: limit, onMessage: (m) => messages.push(m), onWarning: (w) => warnings.push(w) });
  return { d, warnings, messages, answers: () => warnings.map((w) => w.oversize?.answers) };
}

const big = 'y'.repeat(500);

/** Pushes `text` in pieces of `size` bytes, as a pipe would deliver it. */
function pushInPieces(d: LineDecoder, text: string, size = 64): void {
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) d.push(buf.subarray(i, i + size));
}

describe('oversize messages: which request they answer', () => {
  test('id among the first members, whole line in one chunk', () => {
    const { d, answers, warnings } = decoder(100);
    d.push(Buffer.from(`{"jsonrpc":"2.0","id":7,"result":{"text":"${big}"}}\n`));
    assert.deepEqual(answers(), [7]);
    assert.equal(warnings[0].oversize?.complete, true);
    assert.equal(warnings[0].oversize?.limit, 100);
  });

  test('id among the first members, line arriving in pieces: known at once (one warning)', () => {
    const { d, answers, warnings, messages } = decoder(100);
    pushInPieces(d, `{"jsonrpc":"2.0","id":"req-1","result":{"text":"${big}"}}\n{"after":1}\n`);
    assert.deepEqual(answers(), ['req-1']);
    assert.equal(warnings[0].oversize?.complete, false);
    assert.deepEqual(messages, [{ after: 1 }]);
  });

  test('id at the end (TypeScript SDK order), in pieces: a second notice names it when the line ends', () => {
    const { d, answers, warnings } = decoder(100);
    pushInPieces(d, `{"result":{"content":[{"id":3,"text":"${big}"}]},"jsonrpc":"2.0","id":9}\r\n`);
    assert.deepEqual(answers(), [undefined, 9]);
    const whole = Buffer.byteLength(`{"result":{"content":[{"id":3,"text":"${big}"}]},"jsonrpc":"2.0","id":9}`);
    assert.equal(warnings[1].oversize?.bytes, whole);
    assert.equal(warnings[1].oversize?.complete, true);
  });

  test('an id nested in the result is not taken for the response id', () => {
    const { d, answers } = decoder(100);
    pushInPieces(d, `{"result":{"content":[{"text":"${big}","id":3}]}}\n`);
    assert.deepEqual(answers(), [undefined]);
  });

  test("the server's own request (a method) fails nothing, whatever its id", () => {
    const { d, answers } = decoder(100);
    pushInPieces(d, `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"text":"${big}"}}\n`);
    d.push(Buffer.from(`{"method":"x","params":{"t":"${big}"},"jsonrpc":"2.0","id":2}\n`));
    assert.deepEqual(answers(), [undefined, undefined]);
  });

  test('an error answer counts as a response', () => {
    const { d, answers } = decoder(100);
    d.push(Buffer.from(`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"${big}"}}\n`));
    assert.deepEqual(answers(), [4]);
  });

  test('SSE transports hold the text whole: oversizeNotice reads both ends', () => {
    assert.equal(oversizeNotice(`{"result":{"t":"${big}"},"id":12,"jsonrpc":"2.0"}`, 100).answers, 12);
    assert.equal(oversizeNotice(`{"id":5,"result":{"t":"${big}"}}`, 100).answers, 5);
    assert.equal(oversizeNotice(`{"id":5,"method":"m","params":{"t":"${big}"}}`, 100).answers, undefined);
    assert.equal(oversizeNotice(`{"id":5,"result":1}`, 1).bytes, 19);
  });
});

describe('stderr in start-failure messages', () => {
  test("Node's crash report: the error line, not its stack trailer", () => {
    const lines = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/srv/missing.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '    at Module._load (node:internal/modules/cjs/loader:1051:27)',
      '    at node:internal/main/run_main_module:28:49 {',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v20.11.1',
    ];
    assert.equal(describeStderr(lines), "Stderr: Error: Cannot find module '/srv/missing.js'");
  });

  test('ESM, a fatal line, a Python traceback', () => {
    assert.match(describeStderr(["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /x.mjs", '    at f (x)'])!, /ERR_MODULE_NOT_FOUND.*zod/);
    assert.equal(describeStderr(['starting', 'fatal: missing API_KEY']), 'Stderr: fatal: missing API_KEY');
    assert.equal(
      describeStderr(['Traceback (most recent call last):', '  File "s.py", line 1, in <module>', "ModuleNotFoundError: No module named 'mcp'"]),
      "Stderr: ModuleNotFoundError: No module named 'mcp'",
    );
  });

  test('a later unindented message follows the error line; without an error line, the last lines', () => {
    assert.equal(describeStderr(['TypeError: x is undefined', '    at a (b)', 'retrying in 5s', 'giving up']), 'Stderr: TypeError: x is undefined | retrying in 5s | giving up');
    assert.equal(describeStderr(['one', 'two', '', 'three']), 'Last stderr: one | two | three');
    assert.equal(describeStderr(['', '   ']), undefined);
  });
});

describe('versions and names a server sends, in error messages', () => {
  const hostile = `2030-01-01\n[error] [server 'bank'] forged line \u001b[31m\u202e${'x'.repeat(1_000_000)}`;

  test('a version answered by the server: quoted, short, escaped', () => {
    const err = new UnsupportedProtocolVersionError('2025-11-25', hostile, ['2025-11-25']);
    assert.ok(err.message.length < 400, `${err.message.length} characters`);
    assert.match(err.message, /"2030-01-01\\n\[error\]/);
    assert.doesNotMatch(err.message, /[\n\u001b\u202e]/);
    assert.equal(err.answered.length < 100, true);
  });

  test("a server's list of versions: the first few, and how many more", () => {
    const versions = Array.from({ length: 200_000 }, (_, i) => `v${i}`);
    const err = new UnsupportedProtocolVersionError('2026-07-28', versions, ['2026-07-28']);
    assert.ok(err.message.length < 400, `${err.message.length} characters`);
    assert.match(err.message, /supports only "v0", "v1", "v2", "v3", "v4", "v5", 199994 more/);
    assert.match(new UnsupportedProtocolVersionError('2026-07-28', [], []).message, /supports only no version it named/);
  });

  test('capability names and the message of a -32021: bounded, escaped', () => {
    const required = Object.fromEntries([hostile, ...Array.from({ length: 50 }, (_, i) => `cap${i}`)].map((name) => [name, {}]));
    const err = new MissingClientCapabilityError('tools/call', "server 'x'", required, hostile);
    assert.ok(err.message.length < 1_000, `${err.message.length} characters`);
    assert.doesNotMatch(err.message, /[\u001b\u202e]/);
    assert.match(err.message, /45 more/);
    assert.match(new MissingClientCapabilityError('tools/call', "server 'x'", { elicitation: {} }, 'needs forms').message, /asking you for input \(elicitation\)/);
  });
});
