// Writing an added server into an mcp.json text with jsonc-parser edits: the file's comments and
// formatting stay, an existing entry is never replaced unless asked, and inputs already declared
// (by id) are not declared twice.
import { applyEdits, findNodeAtLocation, modify, parse as parseJsonc, parseTree, type ParseError } from 'jsonc-parser';
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

/**
 * The names already configured in a file's text, read from the syntax tree as our config loader
 * reads them: a parsed object would hide `"__proto__"` (it sets the object's prototype instead).
 */
export function configuredNames(text: string | undefined): Set<string> {
  const names = new Set<string>();
  if (!text) return names;
  const root: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const servers = tree && findNodeAtLocation(tree, [serversKey(root)]);
  if (servers?.type !== 'object') return names;
  for (const property of servers.children ?? []) {
    const key = property.children?.[0];
    if (key?.type === 'string') names.add(String(key.value));
  }
  return names;
}

/** Names a JavaScript object does not keep as plain keys (VS Code's settings and our own parse would lose them). */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Why `name` cannot be a server's name, or undefined. */
export function entryNameProblem(name: string): string | undefined {
  return RESERVED_NAMES.has(name) ? `"${name}" cannot be a server's name (JavaScript objects read it as something else)` : undefined;
}

/** A name that cannot be used: like a taken name, another must be chosen. */
export class EntryNameError extends EntryExistsError {
  override name = 'EntryNameError';
}

/** An entry and the inputs it declares. */
export interface EntryWithInputs {
  readonly entry: McpJsonEntry;
  readonly inputs: readonly McpJsonInput[];
}

/** What a configuration holds already: its servers and its declared inputs (as read, unchecked). */
export interface ConfiguredInputs {
  readonly servers: unknown;
  readonly inputs: unknown;
}

const INPUT_REFERENCE = /\$\{input:([^}]+)\}/g;

/**
 * The entry with input ids no other server of the configuration uses. An id already declared, or
 * used by another server, is the other server's stored secret: the new entry gets `ID-2` (`-3`, …)
 * instead, and its `${input:}` references follow. Replacing `name` with the same registry server
 * (the same `gallery`) keeps the ids that only the old entry used, and so its stored secrets.
 */
export function distinctInputs(configured: ConfiguredInputs, name: string, added: EntryWithInputs, replace = false): EntryWithInputs {
  const servers = isRecord(configured.servers) ? configured.servers : {};
  const old = replace && Object.hasOwn(servers, name) ? servers[name] : undefined;
  const sameServer = isRecord(old) && typeof old.gallery === 'string' && old.gallery === added.entry.gallery;
  const taken = new Set<string>();
  for (const input of Array.isArray(configured.inputs) ? configured.inputs : []) if (isRecord(input) && typeof input.id === 'string') taken.add(input.id);
  const others = new Set<string>();
  for (const [other, entry] of Object.entries(servers)) if (other !== name || !sameServer) for (const id of inputIdsOf(entry)) others.add(id);
  const ours = new Set(sameServer ? inputIdsOf(old) : []);
  const reusable = (id: string) => ours.has(id) && !others.has(id);
  const used = new Set([...taken, ...others, ...added.inputs.map((i) => i.id)]);
  const renamed = new Map<string, string>();
  for (const input of added.inputs) {
    if ((!taken.has(input.id) && !others.has(input.id)) || reusable(input.id)) continue;
    let n = 2;
    while (used.has(`${input.id}-${n}`)) n++;
    renamed.set(input.id, `${input.id}-${n}`);
    used.add(`${input.id}-${n}`);
  }
  if (renamed.size === 0) return added;
  return {
    entry: withInputsRenamed(added.entry, renamed) as McpJsonEntry,
    inputs: added.inputs.map((i) => ({ ...i, id: renamed.get(i.id) ?? i.id })),
  };
}

/** {@link distinctInputs} for an mcp.json text. */
export function distinctInputsInText(text: string | undefined, name: string, added: EntryWithInputs, replace = false): EntryWithInputs {
  const root: unknown = text?.trim() ? parseJsonc(text, [], { allowTrailingComma: true }) : undefined;
  return distinctInputs({ servers: isRecord(root) ? root[serversKey(root)] : undefined, inputs: isRecord(root) ? root.inputs : undefined }, name, added, replace);
}

/** Every `${input:ID}` in a server entry's strings. */
function inputIdsOf(value: unknown, ids: string[] = []): string[] {
  if (typeof value === 'string') for (const match of value.matchAll(INPUT_REFERENCE)) ids.push(match[1]);
  else if (Array.isArray(value)) for (const v of value) inputIdsOf(v, ids);
  else if (isRecord(value)) for (const v of Object.values(value)) inputIdsOf(v, ids);
  return ids;
}

function withInputsRenamed(value: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return value.replace(INPUT_REFERENCE, (whole, id: string) => (renamed.has(id) ? `\${input:${renamed.get(id)}}` : whole));
  if (Array.isArray(value)) return value.map((v) => withInputsRenamed(v, renamed));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withInputsRenamed(v, renamed)]));
  return value;
}

/**
 * The text with `name` added (and its inputs, with ids of their own: {@link distinctInputs}).
 * Throws {@link EntryExistsError} when `name` is taken and `replace` is not set, and a plain Error
 * when the text is not a JSON object.
 */
export function addEntryToText(text: string | undefined, name: string, added: McpJsonEntry, addedInputs: readonly McpJsonInput[], replace = false): string {
  let out = text?.trim() ? text : '{\n  "servers": {}\n}\n';
  const errors: ParseError[] = [];
  const root: unknown = parseJsonc(out, errors, { allowTrailingComma: true });
  if (errors.length > 0 || !isRecord(root)) throw new Error('the file is not a JSON object; fix it first');
  const key = serversKey(root);
  const problem = entryNameProblem(name);
  if (problem) throw new EntryNameError(`${problem}; choose another name (--name)`);
  if (!replace && configuredNames(out).has(name)) {
    throw new EntryExistsError(`a server named "${name}" is already configured; choose another name (--name) or replace it (--force)`);
  }
  const { entry, inputs } = distinctInputs({ servers: root[key], inputs: root.inputs }, name, { entry: added, inputs: addedInputs }, replace);
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
