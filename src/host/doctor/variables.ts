import type { ServerDefinition } from '../config';
import { substitute, templatedStrings, VariableError, type VariableContext } from '../variables';
import type { DoctorCheck, DoctorEnvironment } from './types';

const VARIABLE = /\$\{([^}]+)\}/g;

/** Every distinct `${…}` name a definition uses, in order. */
export function variablesIn(def: ServerDefinition): string[] {
  const names: string[] = [];
  for (const text of templatedStrings(def)) {
    for (const match of text.matchAll(VARIABLE)) if (!names.includes(match[1])) names.push(match[1]);
  }
  return names;
}

/** The variables resolved as far as they can be without asking anyone. */
export interface VariableResolution {
  readonly check: DoctorCheck;
  /** Substitutes one string; undefined when a variable in it has no value here (the reason is in the check). */
  readonly substitute: (value: string) => string | undefined;
  /** The stored input values (secrets: never printed, only added to the redactor). */
  readonly inputValues: ReadonlyMap<string, string>;
}

/**
 * Checks that every `${env:}` and `${input:}` a server uses has a value, without printing any:
 * an `${env:}` that is not set (it would become an empty string), an `${input:}` that is not
 * declared or has no stored value, a `${workspaceFolder}` outside a workspace, an unknown name.
 */
export async function resolveVariables(def: ServerDefinition, env: DoctorEnvironment): Promise<VariableResolution> {
  const file = def.source.file;
  const ctx: VariableContext = { workspaceFolder: def.source.workspaceFolder, env: env.processEnv, inputs: env.inputs };
  const inputValues = new Map<string, string>();
  const lines: string[] = [];
  const fixes: string[] = [];
  let failed = false;
  let warned = false;
  for (const name of variablesIn(def)) {
    const whole = `\${${name}}`;
    if (name.startsWith('env:')) {
      const variable = name.slice(4);
      const value = env.processEnv[variable];
      if (value) {
        lines.push(`${whole} is set.`);
      } else {
        warned = true;
        lines.push(`${whole} is ${value === undefined ? 'not set in the environment' : 'set to an empty string'}: it becomes an empty string.`);
        fixes.push(`Set ${variable} in the environment MCP Host starts with (for VS Code started from the Dock or a menu: your login profile, then start VS Code from a terminal), or give the value in "env" or an "envFile".`);
      }
      continue;
    }
    if (name.startsWith('input:')) {
      const id = name.slice(6);
      const input = env.inputs.find((i) => i.id === id);
      if (!input) {
        failed = true;
        lines.push(`${whole} is used, but no input with id "${id}" is declared.`);
        fixes.push(`Declare it in "inputs" of ${file}, e.g. {"id": "${id}", "type": "promptString", "password": true}.`);
        continue;
      }
      const value = await env.storedInput(input);
      if (value !== undefined) {
        inputValues.set(id, value);
        lines.push(`${whole} has a stored value.`);
      } else {
        warned = true;
        lines.push(`${whole} (${input.description ?? id}) has no stored value.`);
        fixes.push(env.missingInputHint);
      }
      continue;
    }
    try {
      substitute(whole, ctx, inputValues);
      lines.push(`${whole} resolves.`);
    } catch (err) {
      failed = true;
      lines.push(err instanceof VariableError ? `${err.message}.` : `${whole} cannot be resolved.`);
      fixes.push(`Correct ${whole} in ${file}.`);
    }
  }
  const title = 'Variables resolvable';
  const check: DoctorCheck =
    lines.length === 0
      ? { id: 'variables', title, status: 'skip', detail: 'No ${…} variables are used.' }
      : { id: 'variables', title, status: failed ? 'fail' : warned ? 'warn' : 'pass', detail: lines.join(' '), fix: fixes.length ? [...new Set(fixes)].join(' ') : undefined };
  const substituteValue = (value: string): string | undefined => {
    try {
      return substitute(value, ctx, inputValues);
    } catch (err) {
      if (err instanceof VariableError) return undefined;
      throw err;
    }
  };
  return { check, substitute: substituteValue, inputValues };
}
