// The doctor: checks one configured server step by step (configuration, variables, command,
// package, folders, network, authentication, a dry handshake) and says what to do about each
// failed step. Host floor: no `vscode`; the CLI and the editor each give it a DoctorEnvironment.

import * as path from 'node:path';
import type { HttpServerDefinition, StdioServerDefinition } from '../config';
import { Redactor, definitionSecrets, launchSecrets, looksSecret } from '../redact';
import { secretValues } from '../variables';
import { buildChildEnv, getEnv } from '../../transport/spawn-plan';
import type { ServerAuthorization } from '../../auth/types';
import { checkCommand, findCommand, namesAPath, readLoginShellPath } from './commandLookup';
import { checkPackage, npmViewVersion, packageRunOf, type RegistryAnswer } from './packageRunner';
import { checkCwd, checkEnvFile } from './localChecks';
import { checkAuthentication, checkDns, checkTls } from './remoteChecks';
import { dryHandshake } from './handshake';
import { resolveVariables, type VariableResolution } from './variables';
import type { DoctorCheck, DoctorEnvironment, DoctorReport, DoctorSubject } from './types';
import { displayConfigUrl } from '../../util/displayUrl';

export type { CheckStatus, DoctorCheck, DoctorEnvironment, DoctorReport, DoctorSubject } from './types';
export { formatReportMarkdown, formatReportText } from './format';

/** Diagnoses one server. Never rejects for the server's sake; every text of the report is redacted. */
export async function diagnoseServer(subject: DoctorSubject, env: DoctorEnvironment): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [configCheck(subject)];
  const def = subject.definition;
  const redactor = new Redactor();
  if (def && !subject.problem) {
    redactor.add(definitionSecrets(def, env.processEnv));
    if (env.untrusted) checks.push({ id: 'trust', title: 'Allowed to start', status: 'warn', detail: `Not started or contacted: ${env.untrusted}.`, fix: 'Trust the workspace (Manage Workspace Trust), then diagnose again for the network and handshake checks.' });
    const variables = await resolveVariables(def, env);
    redactor.add(secretValues(variables.inputValues));
    checks.push(variables.check);
    if (def.type === 'stdio') checks.push(...(await diagnoseStdio(def, variables, env, redactor)));
    else checks.push(...(await diagnoseHttp(def, variables, env, redactor)));
  }
  const redacted = checks.map((c) => ({ ...c, detail: redactor.redact(c.detail), fix: c.fix === undefined ? undefined : redactor.redact(c.fix) }));
  return {
    server: subject.name,
    source: subject.source.file,
    transport: def?.type ?? 'unknown',
    checks: redacted,
    ...verdictOf(redacted),
  };
}

function verdictOf(checks: readonly DoctorCheck[]): Pick<DoctorReport, 'verdict' | 'summary'> {
  const failed = checks.find((c) => c.status === 'fail');
  if (failed) return { verdict: 'fail', summary: `${failed.title}: ${failed.fix ?? failed.detail}` };
  const warned = checks.find((c) => c.status === 'warn');
  if (warned) return { verdict: 'warn', summary: `${warned.title}: ${warned.fix ?? warned.detail}` };
  return { verdict: 'pass', summary: 'Every check passed.' };
}

function configCheck(subject: DoctorSubject): DoctorCheck {
  const title = 'Configuration valid';
  const file = subject.source.file;
  if (subject.problem || !subject.definition) {
    const problem = subject.problem ?? { message: 'No definition was read for this server.' };
    const where = `${file}${problem.line !== undefined ? `:${problem.line}` : ''}`;
    return {
      id: 'config',
      title,
      status: 'fail',
      detail: `${problem.field ? `"${problem.field}": ` : ''}${problem.message}`,
      fix: `Fix ${problem.field ? `"${problem.field}"` : 'the entry'} in ${where}; the server cannot start until then.`,
    };
  }
  const registry = subject.definition.registry;
  const from = registry ? `; registry: ${registry.name}@${registry.version} (${registry.registry})` : '';
  const unapplied = subject.unappliedFile;
  if (unapplied) {
    // A syntax error has a line; a file that cannot be read has none.
    const fix = unapplied.line !== undefined ? `Fix the JSON syntax at ${file}:${unapplied.line}` : `Make ${file} readable again`;
    return {
      id: 'config',
      title,
      status: 'warn',
      detail: `${file}${unapplied.line !== undefined ? `:${unapplied.line}` : ''}: ${unapplied.message} This server is ${subject.definition.type}${from}.`,
      fix: `${fix}; until then the checks below are of the file as at its last valid save.`,
    };
  }
  return { id: 'config', title, status: 'pass', detail: `Read from ${file} (${subject.definition.type})${from}.` };
}

const skipped = (id: DoctorCheck['id'], title: string, why: string): DoctorCheck => ({ id, title, status: 'skip', detail: `Skipped: ${why}.` });

async function diagnoseStdio(def: StdioServerDefinition, variables: VariableResolution, env: DoctorEnvironment, redactor: Redactor): Promise<DoctorCheck[]> {
  const platform = env.platform ?? process.platform;
  const sub = variables.substitute;
  const file = def.source.file;
  const baseDir = def.source.workspaceFolder ?? path.dirname(file);
  const cwdValue = def.cwd === undefined ? undefined : sub(def.cwd);
  const cwd = cwdValue === undefined ? undefined : path.resolve(baseDir, cwdValue);
  const startsIn = cwd ?? env.defaultCwd ?? def.source.workspaceFolder ?? process.cwd();
  const cwdCheck = checkCwd(cwd, def.cwd, startsIn, file);
  const envFileValue = def.envFile === undefined ? undefined : sub(def.envFile);
  const envFile = checkEnvFile(envFileValue === undefined ? undefined : path.resolve(baseDir, envFileValue), def.envFile, file);

  // The environment the server gets: the envFile, then "env" (as a start builds it).
  const overrides: Record<string, string | null> = { ...envFile.values };
  let complete = variables.check.status !== 'fail' && !(def.envFile !== undefined && envFile.values === undefined);
  for (const [key, value] of Object.entries(def.env)) {
    const resolved = value === null ? null : sub(value);
    if (resolved === undefined) complete = false;
    else overrides[key] = resolved;
  }
  redactor.add(Object.entries(overrides).filter((e): e is [string, string] => e[1] !== null && looksSecret(e[0])).map(([, v]) => v));
  const command = sub(def.command);
  const args = def.args.map(sub);
  if (command === undefined || args.some((a) => a === undefined)) complete = false;

  const checks: DoctorCheck[] = [];
  let commandFound = false;
  if (command === undefined) {
    checks.push(skipped('command', 'Command found', '"command" uses a variable without a value here (see Variables)'));
  } else {
    const childEnv = buildChildEnv(env.processEnv, overrides, platform);
    const lookup = { pathValue: getEnv(childEnv, 'PATH', platform), cwd: cwdCheck.status === 'fail' ? process.cwd() : startsIn, platform, env: childEnv };
    // The login shell is asked only when it can help: a bare name that is not on the PATH; and
    // never for an untrusted workspace's server (running the user's profile is running something).
    const needsLogin = !namesAPath(command, platform) && !findCommand(command, lookup).found;
    const loginPath = needsLogin && !env.untrusted ? await (env.loginShellPath?.() ?? readLoginShellPath(env.processEnv, platform)) : undefined;
    let check = checkCommand({ command, lookup, loginPath, file });
    if (needsLogin && env.untrusted && check.status === 'fail') {
      check = { ...check, detail: `${check.detail} Your login shell was not asked for its PATH (not for an untrusted workspace's server).` };
    }
    commandFound = check.status === 'pass';
    checks.push(check);
    const run = packageRunOf(command, args.filter((a): a is string => a !== undefined));
    if (run) {
      if (!commandFound) checks.push(skipped('package', `${run.runner} package`, `${run.runner} itself was not found`));
      else if (env.untrusted) checks.push(skipped('package', `${run.runner} package`, 'not allowed to run anything for this server here (see above)'));
      else {
        const latest = (name: string): Promise<RegistryAnswer> =>
          env.npmLatestVersion
            ? env.npmLatestVersion(name).then((version): RegistryAnswer => (version ? { kind: 'found', version } : { kind: 'unknown', reason: 'no answer' }))
            : npmViewVersion(name, childEnv, lookup.cwd, Math.min(env.timeoutMs, 8000), platform);
        checks.push(await checkPackage({ run, env: childEnv, platform, cwd: lookup.cwd, file, latest }));
      }
    }
  }
  checks.push(cwdCheck, envFile.check);

  const blocker = env.untrusted
    ? 'not allowed to start this server here (see above)'
    : !complete
    ? 'a variable, "env" value or "envFile" has no value here'
    : !commandFound
      ? 'the command was not found'
      : cwdCheck.status === 'fail'
        ? 'the working directory does not exist'
        : undefined;
  if (blocker) {
    checks.push(skipped('handshake', 'Handshake', blocker));
    return checks;
  }
  const spec = { type: 'stdio' as const, command: command!, args: args as string[], env: overrides, cwd: startsIn };
  redactor.add(launchSecrets(spec));
  checks.push(env.runningSession?.() ?? (await dryHandshake({ name: def.name, spec, era: def.protocolEra, file, env })));
  return checks;
}

async function diagnoseHttp(def: HttpServerDefinition, variables: VariableResolution, env: DoctorEnvironment, redactor: Redactor): Promise<DoctorCheck[]> {
  const sub = variables.substitute;
  const file = def.source.file;
  const urlText = sub(def.url);
  const url = urlText !== undefined && URL.canParse(urlText) ? new URL(urlText) : undefined;
  const checks: DoctorCheck[] = [];
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const why = urlText === undefined ? '"url" uses a variable without a value here (see Variables)' : '"url" is not an http:// or https:// URL once its variables are filled in';
    checks.push(skipped('dns', 'Host name resolves', why), skipped('auth', 'Authentication', why), skipped('handshake', 'Handshake', why));
    return checks;
  }
  const headers: Record<string, string> = {};
  let complete = variables.check.status !== 'fail';
  for (const [name, value] of Object.entries(def.headers)) {
    const resolved = sub(value);
    if (resolved === undefined) complete = false;
    else headers[name] = resolved;
  }
  const clientSecret = def.oauth?.clientSecret === undefined ? undefined : sub(def.oauth.clientSecret);
  if (clientSecret) redactor.add([clientSecret]);
  const shownUrl = displayConfigUrl(def.url);
  const spec = { type: def.type, url: url.href, shownUrl, headers };
  redactor.add(launchSecrets(spec));

  if (env.untrusted) {
    const why = 'not allowed to contact this server here (see above)';
    checks.push(skipped('dns', 'Host name resolves', why), skipped('tls', 'TLS certificate', why), skipped('auth', 'Authentication', why), skipped('handshake', 'Handshake', why));
    return checks;
  }
  const dns = await checkDns(url, file, env.timeoutMs);
  checks.push(dns);
  if (dns.status === 'fail') {
    checks.push(skipped('tls', 'TLS certificate', 'the host name does not resolve'), skipped('auth', 'Authentication', 'the host name does not resolve'), skipped('handshake', 'Handshake', 'the host name does not resolve'));
    return checks;
  }
  const tls = await checkTls(url, file, env.timeoutMs);
  checks.push(tls);

  let authorization: ServerAuthorization | undefined;
  const authorizationOf = () =>
    (authorization ??= env.authorization?.({
      name: def.name,
      url: url.href,
      staticClient: def.oauth ? { clientId: def.oauth.clientId, clientSecret, scopes: def.oauth.scopes } : undefined,
    }));
  const auth = await checkAuthentication({
    url,
    shownUrl,
    type: def.type,
    headers,
    file,
    timeoutMs: env.timeoutMs,
    tokenHeld: async () => {
      const provider = authorizationOf();
      return provider ? provider.hasToken() : undefined;
    },
    signInHint: env.signInHint(def.name),
    clientInfo: env.clientInfo,
  });
  checks.push(auth.check);
  const blocker = !complete
    ? 'a variable has no value here'
    : tls.status === 'fail'
      ? 'the TLS certificate is not trusted'
      : !auth.reachable
        ? 'the server could not be reached'
        : auth.needsSignIn
          ? 'sign in first'
          : undefined;
  if (blocker) {
    checks.push(skipped('handshake', 'Handshake', blocker));
    return checks;
  }
  checks.push(env.runningSession?.() ?? (await dryHandshake({ name: def.name, spec, era: def.protocolEra, auth: authorizationOf(), file, env })));
  return checks;
}
