import * as path from 'node:path';
import * as os from 'node:os';
import type { InputDefinition, ServerDefinition } from './config';

/** Asks the user for an `${input:ID}` value (the editor floor implements it with SecretStorage). */
export interface InputResolver {
  resolve(input: InputDefinition, serverName: string): Promise<string | undefined>;
}

export interface VariableContext {
  readonly workspaceFolder?: string;
  readonly userHome?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly inputs: readonly InputDefinition[];
  readonly inputResolver?: InputResolver;
}

export class VariableError extends Error {
  override name = 'VariableError';
}

const VARIABLE = /\$\{([^}]+)\}/g;

/** Every `${input:ID}` a value mentions, in order, without repeats. */
export function inputIdsIn(values: readonly string[]): string[] {
  const ids: string[] = [];
  for (const value of values) {
    for (const match of value.matchAll(VARIABLE)) {
      const name = match[1];
      if (name.startsWith('input:')) {
        const id = name.slice('input:'.length);
        if (!ids.includes(id)) ids.push(id);
      }
    }
  }
  return ids;
}

/**
 * Replaces ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome},
 * ${env:NAME}, ${pathSeparator} and ${input:ID} in one string. An unknown
 * variable is an error that names it, never a silent empty string.
 */
export function substitute(value: string, ctx: VariableContext, inputValues: ReadonlyMap<string, string>): string {
  return value.replace(VARIABLE, (whole, name: string) => {
    if (name === 'workspaceFolder' || name === 'workspaceRoot') {
      if (!ctx.workspaceFolder) throw new VariableError(`${whole} is used, but this configuration does not belong to a workspace folder`);
      return ctx.workspaceFolder;
    }
    if (name === 'workspaceFolderBasename') {
      if (!ctx.workspaceFolder) throw new VariableError(`${whole} is used, but this configuration does not belong to a workspace folder`);
      return path.basename(ctx.workspaceFolder);
    }
    if (name === 'userHome') return ctx.userHome ?? os.homedir();
    if (name === 'pathSeparator' || name === '/') return path.sep;
    if (name.startsWith('env:')) return ctx.env[name.slice(4)] ?? '';
    if (name.startsWith('input:')) {
      const id = name.slice(6);
      const v = inputValues.get(id);
      if (v === undefined) throw new VariableError(`no value for ${whole}`);
      return v;
    }
    throw new VariableError(`unknown variable ${whole}; supported: \${workspaceFolder}, \${workspaceFolderBasename}, \${userHome}, \${env:NAME}, \${input:ID}`);
  });
}

/** The strings of a definition that may hold variables. */
export function templatedStrings(def: ServerDefinition): string[] {
  if (def.type === 'stdio') {
    return [def.command, ...def.args, ...Object.values(def.env).filter((v): v is string => v !== null), def.cwd ?? '', def.envFile ?? ''];
  }
  return [def.url, ...Object.values(def.headers), def.oauth?.clientSecret ?? ''];
}

/** Which input values a definition needs, asked through the resolver. */
export async function resolveInputs(def: ServerDefinition, ctx: VariableContext): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const id of inputIdsIn(templatedStrings(def))) {
    const input = ctx.inputs.find((i) => i.id === id);
    if (!input) throw new VariableError(`\${input:${id}} is used by server "${def.name}", but no input with id "${id}" is declared in "inputs" of ${def.source.file}`);
    if (!ctx.inputResolver) throw new VariableError(`\${input:${id}} needs a value, and nothing here can ask for it`);
    const value = await ctx.inputResolver.resolve(input, def.name);
    if (value === undefined) throw new VariableError(`no value was given for \${input:${id}} (${input.description ?? id}); start the server again to be asked`);
    values.set(id, value);
  }
  return values;
}

/** Input values must never be logged, whether or not the input was marked as a password. */
export function secretValues(inputValues: ReadonlyMap<string, string>): string[] {
  return [...inputValues.values()].filter((v) => v.length >= 4);
}
