// Writing an added server into an mcp.json text with jsonc-parser edits: the file's comments and
// formatting stay, an existing entry is never replaced unless asked, and inputs already declared
// (by id) are not declared twice.
import { applyEdits, modify, parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { isRecord } from '../../util/isRecord';
import type { McpJsonEntry, McpJsonInput } from './toEntry';

const FORMATTING = { insertSpaces: true, tabSize: 2, eol: '\n' } as const;

export class EntryExistsError extends Error {
  override name = 'EntryExistsError';
}

/** The servers key this file uses: VS Code's `servers`, or `mcpServers` of the other hosts' files. */
function serversKey(root: unknown): 'servers' | 'mcpServers' {
  return isRecord(root) && !isRecord(root.servers) && isRecord(root.mcpServers) ? 'mcpServers' : 'servers';
}

/** The names already configured in a file's text. */
export function configuredNames(text: string | undefined): Set<string> {
  const root: unknown = text ? parseJsonc(text, [], { allowTrailingComma: true }) : undefined;
  const servers = isRecord(root) ? root[serversKey(root)] : undefined;
  return new Set(isRecord(servers) ? Object.keys(servers) : []);
}

/**
 * The text with `name` added (and its inputs). Throws {@link EntryExistsError} when `name` is taken
 * and `replace` is not set, and a plain Error when the text is not a JSON object.
 */
export function addEntryToText(text: string | undefined, name: string, entry: McpJsonEntry, inputs: readonly McpJsonInput[], replace = false): string {
  let out = text?.trim() ? text : '{\n  "servers": {}\n}\n';
  const errors: ParseError[] = [];
  const root: unknown = parseJsonc(out, errors, { allowTrailingComma: true });
  if (errors.length > 0 || !isRecord(root)) throw new Error('the file is not a JSON object; fix it first');
  const key = serversKey(root);
  if (!replace && configuredNames(out).has(name)) {
    throw new EntryExistsError(`a server named "${name}" is already configured; choose another name (--name) or replace it (--force)`);
  }
  out = applyEdits(out, modify(out, [key, name], entry, { formattingOptions: FORMATTING }));
  const declared = Array.isArray(root.inputs) ? root.inputs.filter(isRecord).map((i) => i.id) : [];
  const fresh = inputs.filter((i) => !declared.includes(i.id));
  if (fresh.length > 0) {
    if (!Array.isArray(root.inputs)) {
      out = applyEdits(out, modify(out, ['inputs'], fresh, { formattingOptions: FORMATTING }));
    } else {
      // -1: append at the end of the existing array.
      for (const input of fresh) out = applyEdits(out, modify(out, ['inputs', -1], input, { formattingOptions: FORMATTING, isArrayInsertion: true }));
    }
  }
  return out;
}

/** The text with one entry's pinned `version` (and its args/image pin) replaced, for Check for Updates. */
export function replaceEntryInText(text: string, name: string, entry: McpJsonEntry): string {
  const root: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  return applyEdits(text, modify(text, [serversKey(root), name], entry, { formattingOptions: FORMATTING }));
}
