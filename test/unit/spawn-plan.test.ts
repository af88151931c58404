import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  buildChildEnv,
  buildCmdShimCommandLine,
  escapeCmdMeta,
  getEnv,
  planSpawn,
  quoteWindowsArgument,
  resolveWindowsCommand,
} from '../../src/transport/spawn-plan';

// --- Reference models of the Windows parsers (documented behaviour) ----------------------

/**
 * CommandLineToArgvW / MSVCRT (2008+) rules for the argument part of a command line:
 * 2n backslashes + quote -> n backslashes, quote toggles; 2n+1 backslashes + quote -> n
 * backslashes + literal quote; backslashes not before a quote are literal; inside quotes a
 * doubled quote ("") is a literal quote; unquoted space/tab separates arguments.
 */
function parseMsvcrtArgs(line: string): string[] {
  const args: string[] = [];
  let i = 0;
  const n = line.length;
  while (true) {
    while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
    if (i >= n) break;
    let arg = '';
    let inQuotes = false;
    while (i < n) {
      const c = line[i];
      if (!inQuotes && (c === ' ' || c === '\t')) break;
      if (c === '\\') {
        let count = 0;
        while (i < n && line[i] === '\\') {
          count++;
          i++;
        }
        if (i < n && line[i] === '"') {
          arg += '\\'.repeat(Math.floor(count / 2));
          if (count % 2 === 1) {
            arg += '"';
            i++;
          }
        } else {
          arg += '\\'.repeat(count);
        }
        continue;
      }
      if (c === '"') {
        if (inQuotes && line[i + 1] === '"') {
          arg += '"';
          i += 2;
          continue;
        }
        inQuotes = !inQuotes;
        i++;
        continue;
      }
      arg += c;
      i++;
    }
    args.push(arg);
  }
  return args;
}

interface CmdPass {
  /** The text after caret processing. */
  readonly text: string;
  /** Characters cmd would have treated as operators (command separators, redirections, blocks). */
  readonly operators: string[];
  /** Index in `text` where the first token ends (first unescaped, unquoted space). */
  readonly firstTokenEnd: number;
}

/**
 * One cmd.exe parse of a command line (phases 1 and 2 of the parser):
 * phase 1, in command-line mode, replaces %NAME% when NAME is defined and leaves it otherwise;
 * phase 2 removes carets (outside quotes a caret makes the next character literal), toggles
 * quote mode on unescaped quotes, and treats unescaped & | < > ( ) outside quotes as operators.
 */
function cmdPass(line: string, env: Record<string, string>, expandPercent: boolean): CmdPass {
  let s = line;
  if (expandPercent) {
    s = s.replace(/%([^%]+)%/g, (whole, name: string) => {
      const key = Object.keys(env).find((k) => k.toLowerCase() === name.toLowerCase());
      return key !== undefined ? env[key] : whole;
    });
  }
  let out = '';
  const operators: string[] = [];
  let inQuotes = false;
  let firstTokenEnd = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (!inQuotes && c === '^') {
      i++;
      if (i < s.length) out += s[i];
      continue;
    }
    if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && '&|<>()'.includes(c)) operators.push(c);
    else if (!inQuotes && c === ' ' && firstTokenEnd === -1) firstTokenEnd = out.length;
    out += c;
  }
  return { text: out, operators, firstTokenEnd: firstTokenEnd === -1 ? out.length : firstTokenEnd };
}

/** A small deterministic PRNG (mulberry32): rand(n) is an integer in [0, n). */
function randomInts(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const FAKE_ENV = { PATH: 'C:\\Windows', USERPROFILE: 'C:\\Users\\me', VAR: 'EXPANDED', 'VAR^': 'CARET' };

/** What a program started by a %*-forwarding batch shim (npx.cmd and the like) receives. */
function simulateShim(batch: string, args: string[]) {
  const line = buildCmdShimCommandLine(batch, args);
  // cmd.exe /d /s /c "<line>": /s strips the outer quotes, then cmd parses the line once.
  const first = cmdPass(line, FAKE_ENV, true);
  const command = first.text.slice(0, first.firstTokenEnd);
  const forwarded = first.text.slice(first.firstTokenEnd + 1); // what %* expands to
  // The shim's line `"node" "...\cli.js" %*` is parsed again; %* text is not re-expanded.
  const second = cmdPass(forwarded, FAKE_ENV, false);
  return { line, command, operators: [...first.operators, ...second.operators], argv: parseMsvcrtArgs(second.text) };
}

const TRICKY_ARGS = [
  '',
  'plain',
  'with space',
  '  leading and trailing  ',
  'tab\there',
  'a&b',
  'a && calc.exe',
  'x | whoami',
  '> out.txt',
  '< in.txt',
  '(parens)',
  '%PATH%',
  '%VAR%',
  '%VAR',
  '100%',
  '!VAR!',
  '^',
  '^^',
  'caret^&amp',
  '"',
  '""',
  'say "hi"',
  'a"b&c"d',
  '" & calc & "',
  '\\',
  'trailing\\',
  'C:\\Program Files\\',
  'C:\\path\\"quoted"\\',
  '\\\\server\\share',
  '\\"',
  '\\\\"',
  'a\\\\b',
  '--flag=value;other,thing',
  '*?[]`',
  'ünïcödé 😀 世界',
  '@scope/pkg@1.2.3',
  '{"json": "value", "n": [1,2]}',
];

describe('Windows argument quoting (MSVCRT rules)', () => {
  test('every tricky argument survives CommandLineToArgvW parsing', () => {
    for (const arg of TRICKY_ARGS) {
      assert.deepEqual(parseMsvcrtArgs(`prog.exe ${quoteWindowsArgument(arg)}`).slice(1), [arg], JSON.stringify(arg));
    }
    const quotedAll = TRICKY_ARGS.map(quoteWindowsArgument).join(' ');
    assert.deepEqual(parseMsvcrtArgs(quotedAll), TRICKY_ARGS);
  });

  test('random arguments round-trip', () => {
    const alphabet = ['a', ' ', '"', '\\', '\t', '&', '%', '^', '!', 'é'];
    const rand = randomInts(12345);
    for (let k = 0; k < 2000; k++) {
      const arg = Array.from({ length: rand(12) }, () => alphabet[rand(alphabet.length)]).join('');
      assert.deepEqual(parseMsvcrtArgs(quoteWindowsArgument(arg)), [arg], JSON.stringify(arg));
    }
  });
});

describe('cmd.exe shim command line', () => {
  const BATCH = 'C:\\Program Files\\nodejs\\npx.cmd';

  test('tricky arguments reach the program unchanged, and cmd never sees an operator', () => {
    for (const arg of TRICKY_ARGS) {
      const r = simulateShim(BATCH, ['-y', arg]);
      assert.deepEqual(r.operators, [], `${JSON.stringify(arg)} -> ${r.line}`);
      assert.equal(r.command, BATCH);
      assert.deepEqual(r.argv, ['-y', arg], `${JSON.stringify(arg)} -> ${r.line}`);
    }
    const all = simulateShim(BATCH, TRICKY_ARGS);
    assert.deepEqual(all.operators, []);
    assert.deepEqual(all.argv, TRICKY_ARGS);
  });

  test('random arguments are delivered intact with no operators', () => {
    const alphabet = ['a', ' ', '"', '\\', '&', '|', '<', '>', '(', ')', '%', 'V', 'A', 'R', '^', '!'];
    const rand = randomInts(42);
    for (let k = 0; k < 2000; k++) {
      const args = Array.from({ length: 1 + rand(3) }, () => Array.from({ length: rand(10) }, () => alphabet[rand(alphabet.length)]).join(''));
      const r = simulateShim(BATCH, args);
      assert.deepEqual(r.operators, [], r.line);
      assert.deepEqual(r.argv, args, r.line);
    }
  });

  test('every metacharacter in the output is escaped (no bare quote, ampersand, percent...)', () => {
    const line = buildCmdShimCommandLine(BATCH, ['a"&|<>()%!^ b']);
    // Remove escaped pairs; what remains must contain no metacharacter except separators.
    const bare = line.replace(/\^./g, '');
    assert.doesNotMatch(bare, /[()[\]%!^"`<>&|;,*?]/);
  });

  test('escapeCmdMeta caret-escapes the path only once', () => {
    assert.equal(escapeCmdMeta('C:\\Program Files (x86)\\a.cmd'), 'C:\\Program^ Files^ ^(x86^)\\a.cmd');
  });

  test('line breaks and NUL are refused (cmd.exe cannot carry them)', () => {
    assert.throws(() => buildCmdShimCommandLine(BATCH, ['a\nb']), /line break/);
    assert.throws(() => buildCmdShimCommandLine(BATCH, ['a\r']), /line break/);
    assert.throws(() => buildCmdShimCommandLine(BATCH, ['a\0']), /NUL/);
  });
});

describe('resolveWindowsCommand / planSpawn', () => {
  const files = new Set(
    [
      'C:\\Program Files\\nodejs\\npx',
      'C:\\Program Files\\nodejs\\npx.cmd',
      'C:\\Program Files\\nodejs\\node.exe',
      'C:\\Tools\\uvx.exe',
      'C:\\Tools\\run.bat',
      'C:\\work\\local.cmd',
      'C:\\work\\bin\\server.exe',
    ].map((f) => f.toLowerCase()),
  );
  const isFile = (p: string) => files.has(p.toLowerCase());
  const env = { Path: 'C:\\Windows\\system32;"C:\\Program Files\\nodejs";C:\\Tools', PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };

  test('a bare name is found on Path (any case) with PATHEXT, never as the extension-less file', () => {
    assert.equal(resolveWindowsCommand('npx', env, 'C:\\work', isFile), 'C:\\Program Files\\nodejs\\npx.cmd');
    assert.equal(resolveWindowsCommand('node', env, 'C:\\work', isFile), 'C:\\Program Files\\nodejs\\node.exe');
    assert.equal(resolveWindowsCommand('uvx', env, 'C:\\work', isFile), 'C:\\Tools\\uvx.exe');
    assert.equal(resolveWindowsCommand('npx.cmd', env, 'C:\\work', isFile), 'C:\\Program Files\\nodejs\\npx.cmd');
    assert.equal(resolveWindowsCommand('local', env, 'C:\\work', isFile), 'C:\\work\\local.cmd');
    assert.equal(resolveWindowsCommand('bin\\server', env, 'C:\\work', isFile), 'C:\\work\\bin\\server.exe');
    assert.equal(resolveWindowsCommand('missing', env, 'C:\\work', isFile), undefined);
  });

  test('a .cmd runs through cmd.exe /d /s /c with verbatim arguments', () => {
    const plan = planSpawn({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'a&b'], env, cwd: 'C:\\work', platform: 'win32', isFile });
    assert.equal(plan.viaCmd, true);
    assert.equal(plan.file, 'C:\\Windows\\system32\\cmd.exe');
    assert.equal(plan.windowsVerbatimArguments, true);
    assert.deepEqual(plan.args.slice(0, 3), ['/d', '/s', '/c']);
    const last = plan.args[3];
    assert.ok(last.startsWith('"') && last.endsWith('"'));
    const r = cmdPass(last.slice(1, -1), FAKE_ENV, true);
    assert.deepEqual(r.operators, []);
    const again = cmdPass(r.text.slice(r.firstTokenEnd + 1), FAKE_ENV, false);
    assert.deepEqual(parseMsvcrtArgs(again.text), ['-y', '@modelcontextprotocol/server-everything', 'a&b']);
    assert.equal(planSpawn({ command: 'run', args: [], env, cwd: 'C:\\', platform: 'win32', isFile }).viaCmd, true);
  });

  test('an .exe runs directly (Node quotes its arguments); unknown commands are passed through', () => {
    const exe = planSpawn({ command: 'uvx', args: ['mcp-server-git'], env, cwd: 'C:\\work', platform: 'win32', isFile });
    assert.deepEqual(exe, { file: 'C:\\Tools\\uvx.exe', args: ['mcp-server-git'], windowsVerbatimArguments: false, resolved: 'C:\\Tools\\uvx.exe', viaCmd: false });
    const missing = planSpawn({ command: 'nope', args: [], env, cwd: 'C:\\work', platform: 'win32', isFile });
    assert.equal(missing.file, 'nope');
    assert.equal(missing.viaCmd, false);
  });

  test('POSIX: the command and arguments are used as given', () => {
    const plan = planSpawn({ command: 'npx', args: ['-y', 'a b;c'], env: {}, cwd: '/', platform: 'linux', isFile: () => true });
    assert.deepEqual(plan, { file: 'npx', args: ['-y', 'a b;c'], windowsVerbatimArguments: false, viaCmd: false });
  });
});

describe('buildChildEnv', () => {
  test('adds, overrides, removes with null, ignores undefined', () => {
    const env = buildChildEnv({ A: '1', B: '2', C: '3' }, { B: 'two', C: null, D: '4', E: undefined }, 'linux');
    assert.deepEqual(env, { A: '1', B: 'two', D: '4' });
  });

  test('POSIX names are case-sensitive', () => {
    assert.deepEqual(buildChildEnv({ Path: 'x' }, { PATH: 'y' }, 'linux'), { Path: 'x', PATH: 'y' });
  });

  test('Windows names are case-insensitive: no duplicate PATH, null removes any case', () => {
    const env = buildChildEnv({ Path: 'C:\\old', TEMP: 'C:\\t', Foo: 'x' }, { PATH: 'C:\\new', foo: null }, 'win32');
    assert.deepEqual(env, { TEMP: 'C:\\t', PATH: 'C:\\new' });
    assert.equal(getEnv(env, 'path', 'win32'), 'C:\\new');
    assert.equal(getEnv(env, 'path', 'linux'), undefined);
  });

  test('the base environment is not modified', () => {
    const base = { A: '1' };
    buildChildEnv(base, { A: null, B: '2' }, 'linux');
    assert.deepEqual(base, { A: '1' });
  });
});
