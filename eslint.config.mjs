// Lint with type information: the habits the project relies on are checked here, not remembered.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// On Node 20 the first AsyncLocalStorage.run() (or an async hook) installs promise hooks for the
// whole extension host: every promise of every extension pays from then on (#21, protocolTrace.ts).
const ASYNC_HOOKS_MESSAGE = 'Async hooks slow down every promise of the extension host once enabled; pass the value along instead (see protocolTrace.ts sendOnBehalfOf).';
const ASYNC_HOOKS = { name: 'node:async_hooks', message: ASYNC_HOOKS_MESSAGE };
const ASYNC_HOOKS_BARE = { name: 'async_hooks', message: ASYNC_HOOKS_MESSAGE };

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test-host/**', 'test-results/**', '.venv-mcp/**', 'test/fixtures/**', 'bench/**', 'scripts/**', '**/*.mjs', '**/*.js', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './tsconfig.webview.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // No floating promises: a launch's late result or a failed write must be handled or voided on purpose.
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // The layers: the core and host floors run in plain Node and the CLI.
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Control characters are matched on purpose (stripped from names, URIs and log text).
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Every floor (the objects below set the same rule for theirs, and name these too).
    files: ['src/**/*.ts'],
    ignores: ['src/webview/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [ASYNC_HOOKS, ASYNC_HOOKS_BARE] }] },
  },
  {
    // protocol, transport, auth and host never import vscode (nor the editor floor).
    files: ['src/protocol/**/*.ts', 'src/transport/**/*.ts', 'src/auth/**/*.ts', 'src/host/**/*.ts', 'src/cli/**/*.ts', 'src/cli.ts', 'src/cliMain.ts', 'src/remote.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The core and host floors run without VS Code (CLI, plain Node tests).' }, ASYNC_HOOKS, ASYNC_HOOKS_BARE],
          patterns: [{ group: ['**/vscode/**', '../vscode', '../vscode/*'], message: 'The editor floor sits above this one.' }],
        },
      ],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/extension.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [ASYNC_HOOKS, ASYNC_HOOKS_BARE] }] },
  },
  {
    // The editor floor asks ServerConnection, never the protocol client behind it (design.md).
    files: ['src/vscode/**/*.ts', 'src/extension.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='client']",
          message: 'The editor floor talks to ServerConnection (callTool, readResource, getPrompt, …), not to its protocol client.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
