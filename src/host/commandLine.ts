// Pure helpers for the Add Server flow, kept free of `vscode` so they are unit-tested in Node.

const INTERPRETERS = /^(node|nodejs|deno|bun|python[0-9.]*|py|uv|uvx|npx|pnpx|bunx|java|ruby|php|sh|bash|docker|podman)(\.exe|\.cmd)?$/i;

/** A name for a new server: the script or package it runs, not the interpreter. */
export function suggestNameFromCommand(command: string, args: readonly string[]): string {
  const base = (p: string) => p.split(/[\\/]/).pop()!.replace(/\.(js|mjs|cjs|ts|py|exe|cmd|bat|sh)$/i, '');
  const program = base(command);
  if (!INTERPRETERS.test(program)) return program;
  const target = args.find((a) => !a.startsWith('-') && a !== 'run');
  return target ? base(target.replace(/^@[^/]+\//, '').replace(/@[^/]*$/, '')) : program;
}

/** Splits "cmd 'an arg' \"another\" x" into words, honouring single and double quotes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  let inWord = false;
  for (const ch of line.trim()) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}
