// What a registry entry asks of the launcher (npx, uvx, dnx, docker) beyond running its pinned
// package. server.json's `runtimeArguments` go to the launcher itself, and its environment
// variables reach the launcher's process: `--network host`, `--privileged`, `-v /:/host`,
// `-e GITHUB_TOKEN` (the host's value, forwarded), `uvx --from git+https://…`, `npx -p other`,
// `NODE_OPTIONS`, `UV_INDEX_URL` widen what the server may reach or change what runs. The
// registry is a remote party: such requests are shown to the person, who accepts them or not.
import { displayText, shownBothEnds } from '../../util/serverText';

/** Options a launcher may be given without widening anything; `value`: the option takes the next token. */
type KnownOptions = Readonly<Record<string, 'flag' | 'value'>>;

const DOCKER_OPTIONS: KnownOptions = {
  '-i': 'flag',
  '--interactive': 'flag',
  '--rm': 'flag',
  '-t': 'flag',
  '--tty': 'flag',
  '--init': 'flag',
  '--read-only': 'flag',
  '--name': 'value',
  '-w': 'value',
  '--workdir': 'value',
  '--pull': 'value',
  '--platform': 'value',
  '-m': 'value',
  '--memory': 'value',
  '--cpus': 'value',
  '--stop-timeout': 'value',
  '--tmpfs': 'value',
  // -e/--env: only NAME=value (set in the container); a bare NAME forwards this machine's value.
  '-e': 'value',
  '--env': 'value',
};

const LAUNCHER_OPTIONS: Readonly<Record<string, KnownOptions>> = {
  npm: { '-y': 'flag', '--yes': 'flag', '-q': 'flag', '--quiet': 'flag' },
  pypi: { '-q': 'flag', '--quiet': 'flag', '--offline': 'flag', '--no-cache': 'flag' },
  nuget: { '-y': 'flag', '--yes': 'flag' },
  oci: DOCKER_OPTIONS,
};

/**
 * Environment variables a launcher, the shell or loader before it, or what it starts before the
 * package read to choose what to run, where from, with which configuration, or whom to trust: set
 * by a registry, they would change the pinned package's source, run other code, or let its
 * traffic be read. Upper-cased names; a trailing `*` is a prefix.
 */
const ANY_LAUNCHER: readonly string[] = [
  'PATH',
  'PATHEXT',
  'COMSPEC',
  'BASH_ENV',
  'ENV',
  'HOME',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'XDG_*',
  'LD_*',
  'DYLD_*',
  'GCONV_PATH',
  'OPENSSL_*',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
];

const LAUNCHER_ENVIRONMENT: Readonly<Record<string, readonly string[]>> = {
  npm: [...ANY_LAUNCHER, 'NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'NODE_REDIRECT_WARNINGS', 'NPM_CONFIG_*', 'PREFIX'],
  pypi: [
    ...ANY_LAUNCHER,
    'UV_*',
    'PIP_*',
    'PYTHONPATH',
    'PYTHONHOME',
    'PYTHONSTARTUP',
    'PYTHONUSERBASE',
    'PYTHONINSPECT',
    'PYTHONEXECUTABLE',
    'PYTHONPLATLIBDIR',
    'PYTHONBREAKPOINT',
    'PYTHONWARNINGS',
    // uvx --from git+…: git runs these.
    'GIT_SSH',
    'GIT_SSH_COMMAND',
    'GIT_ASKPASS',
    'GIT_EXEC_PATH',
    'GIT_PROXY_COMMAND',
    'GIT_CONFIG*',
  ],
  nuget: [
    ...ANY_LAUNCHER,
    'NUGET_*',
    'DOTNET_ROOT*',
    'DOTNET_STARTUP_HOOKS',
    'DOTNET_ADDITIONAL_DEPS',
    'DOTNET_SHARED_STORE',
    'DOTNET_CLI_HOME',
    'DOTNET_HOST_PATH',
    'DOTNET_NUGET_SIGNATURE_VERIFICATION',
    'CORECLR_*',
    'COMPLUS_*',
  ],
  // docker's own (its daemon, its configuration); the rest reach only the container (-e NAME), the server's own.
  oci: ['PATH', 'HOME', 'XDG_*', 'DOCKER_*', 'LD_*', 'DYLD_*'],
};

/** More than this many requests is no list a person can review: such an entry is not added. */
export const MAX_LAUNCHER_REQUESTS = 16;

function isLauncherVariable(registryType: string, name: string): boolean {
  const upper = name.toUpperCase();
  const patterns = LAUNCHER_ENVIRONMENT[registryType] ?? ANY_LAUNCHER;
  return patterns.some((pattern) => (pattern.endsWith('*') ? upper.startsWith(pattern.slice(0, -1)) : upper === pattern));
}

/** A docker -e value that sets the variable (NAME=value), rather than forwarding this machine's. */
function setsVariable(value: string): boolean {
  return value.indexOf('=') > 0;
}

/** Whether a known option, with the value it takes (undefined: none follows), widens nothing. */
function isHarmless(kind: 'flag' | 'value' | undefined, name: string, value: string | undefined): boolean {
  if (kind === 'flag') return true;
  // A value option without its value would take the next word of the command line: the image or
  // the package, after which the package's own arguments would be read as the launcher's options.
  if (kind !== 'value' || value === undefined) return false;
  return name === '-e' || name === '--env' ? setsVariable(value) : true;
}

/**
 * The runtime arguments (as resolved, in order) that are more than the launcher's harmless
 * options, each with its value ("--network host"), and the environment variables the launcher
 * would read to change what runs ("NODE_OPTIONS=--require ./x.js (environment)"), in a form to
 * show: escaped, and a long one with both its ends. Empty: nothing to ask.
 */
export function launcherRequests(registryType: string, runtimeArguments: readonly string[], environment: Readonly<Record<string, string>>): string[] {
  const known = LAUNCHER_OPTIONS[registryType] ?? {};
  const requests: string[] = [];
  for (let i = 0; i < runtimeArguments.length; i++) {
    const token = runtimeArguments[i];
    if (!token.startsWith('-')) {
      // A word that is no option's value: docker would take it for the image, uvx for the command.
      requests.push(`${shownBothEnds(token)} (not an option: read as what to run)`);
      continue;
    }
    const equals = token.startsWith('--') ? token.indexOf('=') : -1;
    const name = equals > 0 ? token.slice(0, equals) : token;
    const kind = known[name];
    const next = runtimeArguments[i + 1];
    const value = equals > 0 ? token.slice(equals + 1) : kind === 'value' ? next : undefined;
    if (isHarmless(kind, name, value)) {
      if (kind === 'value' && equals < 0) i++;
      continue;
    }
    // An option the launcher may read with the next word as its value: shown together.
    const withNext = equals < 0 && next !== undefined && !next.startsWith('-');
    requests.push(withNext ? `${shownBothEnds(token)} ${shownBothEnds(next)}` : shownBothEnds(token));
    if (withNext) i++;
  }
  for (const [name, value] of Object.entries(environment)) {
    if (isLauncherVariable(registryType, name)) requests.push(`${shownBothEnds(name, 60)}=${shownBothEnds(value)} (environment)`);
  }
  return requests;
}

/** What the CLI and the editor say before the list of requests: "NAME asks COMMAND for more than running its package". */
export function launcherRequestsHeadline(serverName: string, command: unknown): string {
  return `${displayText(serverName, 120)} asks ${displayText(String(command), 40)} for more than running its package`;
}

/** Why the requests are asked about, in the CLI's refusal and the editor's question alike. */
export const LAUNCHER_REQUESTS_RISK = "Such options and variables can give the server this machine's files, devices, network or secrets, or run other code than the version the registry lists";
