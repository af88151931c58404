import * as path from 'node:path';

/** Launchers whose first positional argument is the package that is the server. */
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx', 'dlx']);
/** Interpreters whose first positional argument is the script (or `-m module`) that is the server. */
const INTERPRETERS = new Set(['node', 'nodejs', 'deno', 'bun', 'tsx', 'ts-node', 'python', 'python3', 'py', 'ruby', 'php', 'java']);

/**
 * What to call a server started from a command line: the package or script it runs, not the
 * launcher (`npx -y @scope/pkg` is "@scope/pkg", `uvx pkg` is "pkg", `node dir/x.js` is "x.js").
 */
export function serverNameFromCommand(command: string, args: readonly string[]): string {
  // win32's basename splits on both separators, so a Windows path in a config file works too.
  const launcher = path.win32.basename(command).replace(/\.(exe|cmd|bat)$/i, '');
  let rest = [...args];
  // `npm exec`, `pnpm dlx`, `yarn dlx`, `uv run`, `pipx run`: the sub-command is part of the launcher.
  if (/^(npm|pnpm|yarn|uv|pipx)$/.test(launcher) && /^(exec|x|dlx|run|tool)$/.test(rest[0] ?? '')) {
    rest = rest.slice(rest[0] === 'tool' && rest[1] === 'run' ? 2 : 1);
    return packageName(firstPositional(rest)) ?? launcher;
  }
  if (PACKAGE_RUNNERS.has(launcher)) return packageName(firstPositional(launcher === 'pipx' && rest[0] === 'run' ? rest.slice(1) : rest)) ?? launcher;
  if (INTERPRETERS.has(launcher) || /^python\d/.test(launcher)) {
    const module = rest.indexOf('-m');
    if (module !== -1 && rest[module + 1]) return rest[module + 1];
    const script = firstPositional(rest);
    if (script && !/^(run|exec)$/.test(script)) return path.win32.basename(script);
    const afterRun = script ? firstPositional(rest.slice(rest.indexOf(script) + 1)) : undefined;
    if (afterRun) return path.win32.basename(afterRun);
  }
  return launcher || command;
}

function firstPositional(args: readonly string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'));
}

/** "@scope/pkg@1.2" -> "@scope/pkg", "pkg==1.0" -> "pkg". */
function packageName(spec: string | undefined): string | undefined {
  if (!spec) return undefined;
  const withoutVersion = spec.replace(/(?<=.)@[^/@]*$/, '').replace(/[=<>~!]=?.*$/, '').replace(/\[.*\]$/, '');
  return withoutVersion || spec;
}

/** Names close to `wanted` (edit distance, or one containing the other), best first. */
export function closestNames(wanted: string, names: readonly string[], max = 3): string[] {
  const w = wanted.toLowerCase();
  const scored = names
    .map((name) => {
      const n = name.toLowerCase();
      const distance = editDistance(w, n);
      const contains = n.includes(w) || w.includes(n);
      return { name, score: contains ? Math.min(distance, 1) : distance };
    })
    .filter(({ name, score }) => score <= Math.max(2, Math.floor(Math.max(wanted.length, name.length) / 3)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** A one-line hint for an unknown name: "did you mean …", else what exists. */
export function unknownNameHint(kind: string, wanted: string, names: readonly string[]): string {
  const close = closestNames(wanted, names);
  if (close.length > 0) return `did you mean ${close.map((n) => JSON.stringify(n)).join(' or ')}?`;
  if (names.length === 0) return `the server has no ${kind}s`;
  const shown = names.slice(0, 10).join(', ');
  return `its ${kind}s: ${shown}${names.length > 10 ? `, … (${names.length} in all; see mcp-host list)` : ''}`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}
