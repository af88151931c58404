// What a registry entry asks of the launcher (npx, uvx, dnx, docker) beyond running its pinned
// package. server.json's `runtimeArguments` go to the launcher itself, and its environment
// variables reach the launcher's process: `--network host`, `--privileged`, `-v /:/host`,
// `-e GITHUB_TOKEN` (the host's value, forwarded), `uvx --from git+https://…`, `npx -p other`,
// `NODE_OPTIONS`, `UV_INDEX_URL` widen what the server may reach or change what runs. The
// registry is a remote party: such requests are shown to the person, who accepts them or not.

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
  '-l': 'value',
  '--label': 'value',
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
 * Environment variables a launcher (or what it starts before the package) reads to choose what
 * to run, where from, or whom to trust: set by a registry, they would change the pinned package's
 * source or let its traffic be read. Upper-cased names; a trailing `*` is a prefix. docker's
 * variables other than its own reach only the container (`-e NAME`), where they are the server's.
 */
const PACKAGE_LAUNCHER_ENVIRONMENT: readonly string[] = [
  'PATH',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'NPM_CONFIG_*',
  'UV_*',
  'PIP_*',
  'PYTHON*',
  'NUGET_*',
  'DOTNET_*',
  'LD_*',
  'DYLD_*',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_*',
];

const DOCKER_ENVIRONMENT: readonly string[] = ['PATH', 'DOCKER_*', 'LD_*', 'DYLD_*'];

function isLauncherVariable(registryType: string, name: string): boolean {
  const upper = name.toUpperCase();
  const patterns = registryType === 'oci' ? DOCKER_ENVIRONMENT : PACKAGE_LAUNCHER_ENVIRONMENT;
  return patterns.some((pattern) => (pattern.endsWith('*') ? upper.startsWith(pattern.slice(0, -1)) : upper === pattern));
}

/** A docker -e value that sets the variable (NAME=value), rather than forwarding this machine's. */
function setsVariable(value: string | undefined): boolean {
  return value !== undefined && value.indexOf('=') > 0;
}

/**
 * The runtime arguments (as resolved, in order) that are more than the launcher's harmless
 * options, each with its value ("--network host"), and the environment variables the launcher
 * would read to change what runs ("NODE_OPTIONS (environment)"). Empty: nothing to ask.
 */
export function launcherRequests(registryType: string, runtimeArguments: readonly string[], environment: readonly string[]): string[] {
  const known = LAUNCHER_OPTIONS[registryType] ?? {};
  const requests: string[] = [];
  for (let i = 0; i < runtimeArguments.length; i++) {
    const token = runtimeArguments[i];
    const equals = token.startsWith('--') ? token.indexOf('=') : -1;
    const name = equals > 0 ? token.slice(0, equals) : token;
    const kind = token.startsWith('-') ? known[name] : undefined;
    const takesNext = kind === 'value' && equals < 0 && i + 1 < runtimeArguments.length;
    const value = equals > 0 ? token.slice(equals + 1) : takesNext ? runtimeArguments[i + 1] : undefined;
    const harmless = kind === 'flag' || (kind === 'value' && (name === '-e' || name === '--env' ? setsVariable(value) : true));
    if (!harmless) {
      // An option the launcher may read with its value: shown together. A word that is no
      // option's value (docker would take it for the image, uvx for the command) is shown alone.
      const next = runtimeArguments[i + 1];
      const withNext = token.startsWith('-') && equals < 0 && next !== undefined && !next.startsWith('-');
      requests.push(withNext ? `${token} ${next}` : token);
      if (withNext) i++;
      continue;
    }
    if (takesNext) i++;
  }
  for (const name of environment) if (isLauncherVariable(registryType, name)) requests.push(`${name} (environment)`);
  return requests;
}
