import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { inputIdsIn, resolveInputs, secretValues, substitute, VariableError, type VariableContext } from '../../src/host/variables';
import { Redactor, looksSecret, redactingLogger, REDACTED } from '../../src/host/redact';
import type { StdioServerDefinition } from '../../src/host/config';

const ctx: VariableContext = {
  workspaceFolder: '/work/project',
  userHome: '/home/ada',
  env: { API_HOST: 'example.org' },
  inputs: [{ id: 'token', type: 'promptString', password: true, description: 'API token' }],
};

describe('variables', () => {
  test('substitutes the supported variables', () => {
    const out = substitute('${workspaceFolder}/x ${workspaceFolderBasename} ${userHome} ${env:API_HOST} ${env:NOPE}|', ctx, new Map());
    assert.equal(out, `/work/project/x project /home/ada example.org |`);
    assert.equal(substitute('a${pathSeparator}b', ctx, new Map()), `a${path.sep}b`);
  });

  test('an unknown variable is an error naming it', () => {
    assert.throws(() => substitute('${config:foo}', ctx, new Map()), (e: unknown) => e instanceof VariableError && /\$\{config:foo\}/.test(e.message));
  });

  test('${workspaceFolder} without a folder is an error', () => {
    assert.throws(() => substitute('${workspaceFolder}', { ...ctx, workspaceFolder: undefined }, new Map()), /does not belong to a workspace folder/);
  });

  test('finds input ids once each', () => {
    assert.deepEqual(inputIdsIn(['${input:a} ${input:b}', '${input:a}', 'plain']), ['a', 'b']);
  });

  test('inputs are asked through the resolver, and an undeclared input is an error', async () => {
    const asked: string[] = [];
    const def: StdioServerDefinition = {
      type: 'stdio',
      name: 's',
      command: 'node',
      args: ['--token=${input:token}'],
      env: { TOKEN: '${input:token}' },
      source: { file: '/work/project/.vscode/mcp.json', kind: 'workspace', workspaceFolder: '/work/project' },
    };
    const values = await resolveInputs(def, {
      ...ctx,
      inputResolver: {
        resolve: async (input) => {
          asked.push(input.id);
          return 's3cr3t-value';
        },
      },
    });
    assert.deepEqual(asked, ['token']);
    assert.equal(values.get('token'), 's3cr3t-value');
    assert.deepEqual(secretValues(values), ['s3cr3t-value']);
    await assert.rejects(resolveInputs({ ...def, args: ['${input:other}'] }, ctx), /no input with id "other" is declared/);
    await assert.rejects(
      resolveInputs(def, { ...ctx, inputResolver: { resolve: async () => undefined } }),
      /no value was given/,
    );
  });
});

describe('redaction', () => {
  test('secret-looking names', () => {
    for (const name of ['GITHUB_TOKEN', 'api_key', 'OPENAI_API_KEY', 'DB_PASSWORD', 'CLIENT_SECRET', 'Authorization']) assert.ok(looksSecret(name), name);
    for (const name of ['PATH', 'HOME', 'DEBUG', 'PORT']) assert.ok(!looksSecret(name), name);
  });

  test('every occurrence of every secret is replaced, longest first', () => {
    const r = new Redactor();
    r.add(['abcd1234', 'abcd1234-extended', 'xy']); // too short to redact safely: xy
    assert.equal(r.redact('a abcd1234-extended b abcd1234 xy'), `a ${REDACTED} b ${REDACTED} xy`);
    const lines: string[] = [];
    const logger = redactingLogger({ trace: (m) => lines.push(m), debug: (m) => lines.push(m), info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) }, r);
    logger.info('token=abcd1234');
    logger.error('{"auth":"abcd1234"}');
    assert.deepEqual(lines, [`token=${REDACTED}`, `{"auth":"${REDACTED}"}`]);
  });
});
