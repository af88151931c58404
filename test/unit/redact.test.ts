import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Redactor, redactPatterns, definitionSecrets, envReferenceIsSecret, launchSecrets, tokenArgumentValues, REDACTED } from '../../src/host/redact';
import { describeLaunch } from '../../src/host/transportFactory';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';

const source: ConfigSource = { file: '/w/.vscode/mcp.json', kind: 'workspace', workspaceFolder: '/w' };

describe('redactPatterns: credentials recognisable by their form', () => {
  const cases: Array<[string, string, string]> = [
    ['--token=VALUE', 'run --token=s3cr3t-value-1 --verbose', 's3cr3t-value-1'],
    ['--api-key VALUE', 'run --api-key s3cr3t-value-2 next', 's3cr3t-value-2'],
    ['--github-token "VALUE"', 'x --github-token "s3cr3t value 3"', 's3cr3t value 3'],
    ['-password=VALUE', 'db -password=s3cr3t-value-4', 's3cr3t-value-4'],
    ['Bearer', 'Authorization: Bearer abc.DEF-ghi_123456', 'abc.DEF-ghi_123456'],
    ['ENV=VALUE', 'env: OPENAI_API_KEY=s3cr3t-value-5 PATH=/usr/bin', 's3cr3t-value-5'],
    ['query string', 'GET https://x.test/mcp?access_token=s3cr3t-value-6&page=2', 's3cr3t-value-6'],
    ['JSON key', '{"name":"login","arguments":{"apiKey":"s3cr3t-value-7","user":"me"}}', 's3cr3t-value-7'],
    ['JSON key, escaped value', '{"client_secret":"s3cr3t\\"value-8"}', 's3cr3t\\"value-8'],
    ['JSON in a JSON string', JSON.stringify({ text: JSON.stringify({ password: 's3cr3t-value-10', n: 1 }) }), 's3cr3t-value-10'],
    ['URL user:password', 'connecting to https://me:s3cr3t-value-9@x.test/mcp', 's3cr3t-value-9'],
    ['sk- (OpenAI/Anthropic)', 'key sk-proj-AbCdEfGhIjKlMnOpQrStUv in use', 'sk-proj-AbCdEfGhIjKlMnOpQrStUv'],
    ['ghp_', 'token ghp_0123456789abcdefghijABCDEFGHIJ0123 rejected', 'ghp_0123456789abcdefghijABCDEFGHIJ0123'],
    ['github_pat_', 'github_pat_11AAAAAAA0123456789_abcdefghijklmnop', 'github_pat_11AAAAAAA0123456789_abcdefghijklmnop'],
    ['xoxb-', 'slack: xoxb-123456789012-abcdefGHIJ', 'xoxb-123456789012-abcdefGHIJ'],
    ['AKIA', 'aws AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE'],
    ['JWT', 'id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_nature-x', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0'],
  ];
  for (const [name, text, secret] of cases) {
    test(name, () => {
      const out = redactPatterns(text);
      assert.ok(!out.includes(secret), `${JSON.stringify(out)} still holds ${secret}`);
      assert.ok(out.includes(REDACTED), out);
    });
  }

  test('keeps what is not a credential', () => {
    for (const text of [
      'Running: good-server 1.0.0, protocol 2025-06-18, pid 1234',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"abc-123-def"}}}',
      '{"token_endpoint":"https://as.test/token","authorization_endpoint":"https://as.test/authorize","token_type":"Bearer"}',
      'WWW-Authenticate: Bearer realm="mcp", resource_metadata="https://x.test/.well-known/oauth-protected-resource"',
      'mcp-host --no-token-store --verbose',
      'cwd PWD=/home/me/project',
    ]) {
      assert.equal(redactPatterns(text), text);
    }
  });
});

describe('Redactor: known values, then patterns', () => {
  test('replaces a known value, its JSON-escaped and URL-encoded forms, longest first', () => {
    const r = new Redactor();
    r.add(['pa"ss/wo rd', 'abc', 'longsecret', 'longsecret-and-more']);
    assert.equal(r.redact('x longsecret-and-more y longsecret'), `x ${REDACTED} y ${REDACTED}`);
    assert.equal(r.redact(JSON.stringify({ v: 'pa"ss/wo rd' })), `{"v":"${REDACTED}"}`);
    assert.equal(r.redact(`?q=${encodeURIComponent('pa"ss/wo rd')}`), `?q=${REDACTED}`);
    // Under four characters a value is too likely to be an ordinary word.
    assert.equal(r.redact('abc'), 'abc');
  });
});

describe('what a definition tells about its secrets', () => {
  const env = { MY_TOKEN: 'tok-from-env-1', GH: 'plain-named-secret', HOME_DIR: '/home/me', SHORT: 'abc12', SERVER_URL: 'https://api.test/mcp' };

  test('${env:} in args, env and headers: secret by name, or when long and not a path', () => {
    assert.equal(envReferenceIsSecret('MY_TOKEN', 'x1234'), true);
    assert.equal(envReferenceIsSecret('GH', 'plain-named-secret'), true);
    assert.equal(envReferenceIsSecret('HOME_DIR', '/home/me'), false);
    assert.equal(envReferenceIsSecret('SHORT', 'abc12'), false);
    const def: ServerDefinition = {
      type: 'stdio',
      name: 's',
      command: 'node',
      args: ['server.js', '--key', '${env:GH}', '--root', '${env:HOME_DIR}', '--n', '${env:SHORT}', '--token=literal-token-1'],
      env: { API_TOKEN: 'literal-env-secret', LOG_LEVEL: 'debug-verbose', FROM_ENV: '${env:MY_TOKEN}' },
      source,
    };
    const secrets = definitionSecrets(def, env);
    for (const s of ['plain-named-secret', 'tok-from-env-1', 'literal-env-secret', 'literal-token-1']) assert.ok(secrets.includes(s), s);
    for (const s of ['/home/me', 'abc12', 'debug-verbose']) assert.ok(!secrets.includes(s), s);
  });

  test('a ${env:} value in a URL is a secret (#18); in a header by its name or form', () => {
    const def: ServerDefinition = {
      type: 'http',
      name: 'r',
      url: '${env:SERVER_URL}',
      headers: { Authorization: 'Bearer literal-bearer-1', 'X-Trace': 'trace-value-long', 'X-Key': '${env:GH}' },
      oauth: { clientId: 'c', clientSecret: 'literal-client-secret' },
      source,
    };
    const secrets = definitionSecrets(def, env);
    assert.ok(secrets.includes('https://api.test/mcp'), 'a value put into the address may be a key or a signature');
    assert.ok(!secrets.includes('Bearer'), 'the scheme word is not a secret');
    for (const s of ['Bearer literal-bearer-1', 'literal-bearer-1', 'plain-named-secret', 'literal-client-secret']) assert.ok(secrets.includes(s), s);
    assert.ok(!secrets.includes('trace-value-long'));
  });

  test('token arguments and a launch line', () => {
    assert.deepEqual(tokenArgumentValues(['--api-key', 'v1xxxx', '--verbose', '--token=v2yyyy', '--auth-token', '--next']), ['v1xxxx', 'v2yyyy']);
    const spec = { type: 'stdio' as const, command: 'srv', args: ['--api-key', 'v1xxxx zz'], env: { DB_PASSWORD: 'pw-12345', MODE: 'fast' } };
    assert.deepEqual(launchSecrets(spec).sort(), ['pw-12345', 'v1xxxx zz']);
    const line = describeLaunch(spec);
    assert.ok(!line.includes('v1xxxx'), line);
    assert.match(line, /^srv --api-key /);
  });
});
