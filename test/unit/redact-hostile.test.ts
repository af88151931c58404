// Redaction runs over every line a server sends (logs, stderr, error messages, traces), so it must
// cost linear time on any text: a pattern that backtracks froze the extension host for 29 s on a
// 200 KB log line of `.a.a.a…`. The ReDoS checker proves each pattern; the timings separate linear
// from quadratic with a wide margin (a quadratic pass over 1 MB takes minutes).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { check } from 'recheck';
import { LOG_LINE_MAX, REDACTED, REDACTION_PATTERNS, Redactor, definitionSecrets, redactLogLine, redactPatterns } from '../../src/host/redact';
import type { ServerDefinition } from '../../src/host/config';

/** The checker's attack string with every pump repeated until the whole is about `bytes` long. */
function pumpedAttack(attack: { pumps: ReadonlyArray<{ prefix: string; pump: string }>; suffix: string }, bytes: number): string {
  const pumpLength = attack.pumps.reduce((sum, p) => sum + p.pump.length, 0) || 1;
  const times = Math.ceil(bytes / pumpLength);
  return attack.pumps.map((p) => p.prefix + p.pump.repeat(times)).join('') + attack.suffix;
}

describe('redaction of hostile text', () => {
  // The checker's verdict is not steady for these patterns: its fuzzer sometimes rates a bounded
  // repetition ({0,64}) "polynomial" from small inputs (in about 1 run in 3 on a loaded machine).
  // So a claimed attack is tried for real: its pump repeated to 1 MB must run in well under a
  // second (a quadratic pattern takes minutes there). An automaton proof or a clean fuzz passes as is.
  test('every pattern is safe by the ReDoS checker, or its claimed attack runs in linear time', { timeout: 600_000 }, async () => {
    assert.ok(REDACTION_PATTERNS.length >= 6);
    for (const pattern of REDACTION_PATTERNS) {
      const result = await check(pattern.source, pattern.flags.replace('g', ''), { timeout: null, randomSeed: 20261124 });
      if (result.status === 'safe') continue;
      assert.equal(result.status, 'vulnerable', `${pattern.source}: ${JSON.stringify(result).slice(0, 400)}`);
      if (result.status !== 'vulnerable') continue;
      const attack = pumpedAttack(result.attack, 1_000_000);
      const started = performance.now();
      attack.replace(new RegExp(pattern.source, pattern.flags), '');
      const ms = performance.now() - started;
      assert.ok(ms < 1000, `${pattern.source}: the checker's attack ${JSON.stringify(result.attack.pattern)} at 1 MB took ${ms.toFixed(0)} ms`);
    }
  });

  const hostile: Array<[string, (n: number) => string]> = [
    ['dotted', (n) => '.a'.repeat(n / 2)],
    ['a scheme without ://', (n) => 'a+'.repeat(n / 2)],
    ['name before =', (n) => ' a'.repeat(n / 4) + 'a.'.repeat(n / 4)],
    ['flags', (n) => ' -a'.repeat(n / 3)],
    ['quotes', (n) => '"a.'.repeat(n / 3)],
    ['query', (n) => '?a.'.repeat(n / 3)],
    ['userinfo', (n) => 'a://b:'.repeat(n / 6)],
    ['JWT-like', (n) => '-eyJ'.repeat(n / 4)],
    ['token prefixes', (n) => 'sk-'.repeat(n / 3)],
  ];
  for (const [name, make] of hostile) {
    test(`1 MB of ${name} text is redacted in linear time`, () => {
      const small = make(100_000);
      const large = make(1_000_000);
      const started = performance.now();
      redactPatterns(small);
      const smallMs = performance.now() - started;
      const again = performance.now();
      redactPatterns(large);
      const largeMs = performance.now() - again;
      // Ten times the text: linear is ~10x, quadratic ~100x. One second is far above linear here.
      assert.ok(largeMs < 1000, `${name}: 1 MB took ${largeMs.toFixed(0)} ms (100 KB: ${smallMs.toFixed(0)} ms)`);
    });
  }

  test('signed and keyed query strings are redacted, the rest of the address stays', () => {
    const out = redactPatterns('GET https://x.test/mcp?key=abc123def&page=2&sig=zzz999&X-Amz-Signature=f00d&code=c0de1');
    assert.equal(out, `GET https://x.test/mcp?key=${REDACTED}&page=2&sig=${REDACTED}&X-Amz-Signature=${REDACTED}&code=${REDACTED}`);
  });

  test('a ${env:} value in a server URL is a secret', () => {
    const def = { name: 'r', type: 'http', url: 'https://x.test/mcp?k=${env:MY_URL_PART}', headers: {} } as unknown as ServerDefinition;
    assert.deepEqual(definitionSecrets(def, { MY_URL_PART: 'value-of-the-part' }), ['value-of-the-part']);
  });

  test('a log line is cut with a marker, and never keeps the head of a secret at the cut', () => {
    const redactor = new Redactor();
    const secret = 'S3CRET-' + 'x'.repeat(40);
    redactor.add([secret]);
    const line = 'y'.repeat(LOG_LINE_MAX - 10) + secret + 'tail';
    const out = redactLogLine(redactor, line);
    assert.ok(!out.includes('S3CRET'), out.slice(-80));
    assert.match(out, /… \[\d+ more characters cut\]$/);
    assert.ok(out.length < LOG_LINE_MAX + 64);
    assert.equal(redactLogLine(redactor, `short ${secret}`), `short ${REDACTED}`);
  });
});
