import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { displayConfigUrl } from '../../util/displayUrl';
import { errorMessage } from '../../util/errorMessage';
import type { HttpServerDefinition, ServerDefinition, StdioServerDefinition } from '../config';
import type { HttpLaunchSpec, StdioLaunchSpec } from '../launchSpec';
import { headerSecretValues, isCredentialHeader, looksSecret, tokenArgumentValues, type Redactor } from '../redact';
import { resolveInputs, secretValues, substitute, VariableError } from '../variables';
import type { ConnectionEnvironment } from './environment';

/** A launch spec, and for remote servers the resolved OAuth client secret (which is not the transport's). */
export type PreparedHttpSpec = HttpLaunchSpec & { clientSecret?: string };
export type PreparedSpec = StdioLaunchSpec | PreparedHttpSpec;

/**
 * Resolves variables, inputs and envFile into what the transport is built from. Every secret
 * value met on the way (inputs, secret env values, credential headers, token arguments, the
 * client secret) is given to the redactor before anything is logged.
 */
export async function prepareLaunch(def: ServerDefinition, env: ConnectionEnvironment, redactor: Redactor): Promise<PreparedSpec> {
  const ctx = {
    workspaceFolder: def.source.workspaceFolder,
    env: env.processEnv,
    inputs: env.inputs(),
    inputResolver: env.inputResolver,
  };
  const inputValues = await resolveInputs(def, ctx);
  redactor.add(secretValues(inputValues));
  const sub = (value: string) => substitute(value, ctx, inputValues);
  return def.type === 'stdio' ? prepareStdio(def, sub, redactor) : prepareHttp(def, sub, redactor);
}

function prepareStdio(def: StdioServerDefinition, sub: (value: string) => string, redactor: Redactor): StdioLaunchSpec {
  const baseDir = def.source.workspaceFolder ?? path.dirname(def.source.file);
  const cwd = def.cwd ? path.resolve(baseDir, sub(def.cwd)) : def.source.workspaceFolder;
  const env: Record<string, string | null> = {};
  if (def.envFile) {
    const file = path.resolve(baseDir, sub(def.envFile));
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new VariableError(`envFile ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`);
    }
    Object.assign(env, parseDotenv(text));
  }
  for (const [key, value] of Object.entries(def.env)) env[key] = value === null ? null : sub(value);
  // Values of secret-looking variables never reach the log.
  redactor.add(Object.entries(env).filter(([k, v]) => v !== null && looksSecret(k)).map(([, v]) => v as string));
  const args = def.args.map(sub);
  redactor.add(tokenArgumentValues(args));
  return { type: 'stdio', command: sub(def.command), args, env, cwd };
}

function prepareHttp(def: HttpServerDefinition, sub: (value: string) => string, redactor: Redactor): PreparedHttpSpec {
  const url = sub(def.url);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new VariableError(`"url" is not an http:// or https:// URL after its variables were filled in`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(def.headers)) {
    headers[name] = sub(value);
    // Credentials in headers never reach a log, whatever the header is called.
    if (isCredentialHeader(name)) redactor.add(headerSecretValues(headers[name]));
  }
  const clientSecret = def.oauth?.clientSecret ? sub(def.oauth.clientSecret) : undefined;
  if (clientSecret) redactor.add([clientSecret]);
  return { type: def.type, url, shownUrl: displayConfigUrl(def.url), headers, clientSecret };
}
