// `mcp-host conformance <serverUrl>`: the client side of the official MCP conformance suite
// (@modelcontextprotocol/conformance). The suite starts a test server per scenario, runs this
// command with the server's URL appended, and names the scenario in MCP_CONFORMANCE_SCENARIO
// (with scenario data such as static client credentials in MCP_CONFORMANCE_CONTEXT).
// Everything here goes through our own client, HTTP transport and OAuth: this file only
// decides what a well-behaved client does in each scenario.
import { McpClient } from '../protocol/client';
import { isRecord } from '../util/isRecord';
import { RemoteError } from '../protocol/errors';
import type { Tool } from '../protocol/schemas';
import type { Logger } from '../util/logger';
import type { Transport } from '../transport/transport';
import { createHttpTransport } from '../transport/http';
import { OAuthProvider } from '../auth/oauthProvider';
import { MemorySecretStore } from '../auth/stores';
import type { AuthorizationInteraction, StaticClientConfig } from '../auth/types';
import { errorMessage } from '../util/errorMessage';
import { VERSION } from '../version';

export interface ConformanceIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

/** The client metadata URL the suite's CIMD scenario expects as client_id (it is never fetched). */
export const CONFORMANCE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** What the client does after connecting: which tools to call, with which arguments. */
interface ScenarioPlan {
  /** Tool to call after listing tools; none for a bare handshake. */
  tool?: ToolCall;
  /** Calls made from what was listed (and the scenario's context), one after another. */
  calls?: (tools: readonly Tool[], context: ConformanceContext) => ToolCall[];
  /** Calls made at the same time: a request of one must not borrow another's round (MRTR). */
  concurrent?: ToolCall[];
  /** Also lists resources and prompts, and reads the first resource and gets the first prompt. */
  browse?: boolean;
  /** Accepts elicitation requests with the form's default values (SEP-1034). */
  acceptElicitationWithDefaults?: boolean;
  /** The suite passes when we give up (e.g. an endless 403): a failed call is not our failure. */
  failureExpected?: boolean;
}

const PLANS: Record<string, ScenarioPlan> = {
  initialize: {},
  tools_call: { tool: { name: 'add_numbers', args: { a: 5, b: 3 } } },
  'elicitation-sep1034-client-defaults': {
    tool: { name: 'test_client_elicitation_defaults', args: {} },
    acceptElicitationWithDefaults: true,
  },
  'sse-retry': { tool: { name: 'test_reconnection', args: {} } },
  // The server answers 403 insufficient_scope forever; a client must stop asking after a few tries.
  'auth/scope-retry-limit': { tool: { name: 'test-tool', args: {} }, failureExpected: true },
  // 2026-07-28 (the suite's --spec-version 2026-07-28 requirements):
  // _meta and MCP-Protocol-Version on every request; the first one is refused with -32022.
  'request-metadata': {},
  // A tool whose inputSchema $refs a network URL: listed, never fetched.
  'json-schema-ref-no-deref': {},
  // The listed inputSchema, sent back as it came (no keyword lost in parsing).
  'json-schema-2020-12-preservation': {
    calls: (tools) => {
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      return focal ? [{ name: 'json_schema_echo', args: { schema: focal.inputSchema } }] : [];
    },
  },
  // MRTR: each tool asks for input (with or without requestState); an unrelated call runs meanwhile.
  'sep-2322-client-request-state': {
    acceptElicitationWithDefaults: true,
    concurrent: [
      { name: 'test_mrtr_echo_state', args: {} },
      { name: 'test_mrtr_unrelated', args: {} },
    ],
    calls: () => [
      { name: 'test_mrtr_no_state', args: {} },
      { name: 'test_mrtr_no_result_type', args: {} },
    ],
  },
  // Mcp-Method and Mcp-Name on each kind of request: one of each.
  'http-standard-headers': { browse: true, calls: (tools) => tools.slice(0, 1).map((t) => ({ name: t.name, args: {} })) },
  // x-mcp-header: the calls the scenario names (in its context), with their Mcp-Param-* headers.
  'http-custom-headers': { calls: (_tools, context) => context.toolCalls ?? [] },
  // Tools with invalid x-mcp-header annotations are left out of the list; every listed tool is called.
  'http-invalid-tool-headers': { calls: (tools) => tools.map((t) => ({ name: t.name, args: {} })) },
};

/** Every auth/* scenario: sign in as needed, list tools, call the server's one tool. */
const AUTH_PLAN: ScenarioPlan = { tool: { name: 'test-tool', args: {} } };

export function planFor(scenario: string): ScenarioPlan | undefined {
  return PLANS[scenario] ?? (scenario.startsWith('auth/') ? AUTH_PLAN : undefined);
}

/** The whole run must end by itself even if a server never answers (the suite's own limit is 30 s). */
const OVERALL_TIMEOUT_MS = 25_000;
const REQUEST_TIMEOUT_MS = 10_000;

export async function runConformance(argv: string[], io: ConformanceIo): Promise<number> {
  const scenario = io.env.MCP_CONFORMANCE_SCENARIO;
  const [serverUrl, ...rest] = argv;
  if (!scenario || !serverUrl || rest.length > 0 || !URL.canParse(serverUrl)) {
    io.stderr('Usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp-host conformance <serverUrl>\n');
    io.stderr('Run by the official conformance suite: conformance client --command "node dist/cli.js conformance" ...\n');
    return 2;
  }
  const plan = planFor(scenario);
  if (!plan) {
    io.stderr(`mcp-host conformance: unknown scenario ${JSON.stringify(scenario)}; known: ${Object.keys(PLANS).join(', ')}, auth/*\n`);
    return 2;
  }
  let context: ConformanceContext;
  try {
    context = parseContext(io.env.MCP_CONFORMANCE_CONTEXT);
  } catch (err) {
    io.stderr(`mcp-host conformance: MCP_CONFORMANCE_CONTEXT is not valid: ${(err as Error).message}\n`);
    return 2;
  }

  const log = (line: string) => io.stderr(`[conformance ${scenario}] ${line}\n`);
  const logger: Logger = {
    trace() {},
    debug: (m) => log(`debug: ${m}`),
    info: (m) => log(m),
    warn: (m) => log(`warning: ${m}`),
    error: (m) => log(`error: ${m}`),
  };

  const url = new URL(serverUrl);
  const staticClient: StaticClientConfig | undefined = context.client_id
    ? { clientId: context.client_id, clientSecret: context.client_secret }
    : undefined;
  const auth = new OAuthProvider({
    serverName: 'conformance',
    resource: url.href,
    store: new MemorySecretStore(),
    interaction: followRedirectsInteraction(log),
    // Headless: the "browser" is ours, so a sign-in may start whenever the server asks.
    interactive: true,
    staticClient,
    clientMetadataUrl: CONFORMANCE_CLIENT_METADATA_URL,
    clientName: 'MCP Host conformance client',
    callbackTimeoutMs: REQUEST_TIMEOUT_MS,
    log: (line) => log(`auth: ${line}`),
  });
  const transport: Transport = createHttpTransport('http', { url: url.href, label: 'conformance', auth });
  transport.onLog((line) => log(line));
  transport.onWarning((w) => log(`transport warning: ${w.message}`));
  const client = new McpClient(
    transport,
    { label: `server at ${url.origin}`, clientInfo: { name: 'mcp-host-conformance', version: VERSION }, requestTimeoutMs: REQUEST_TIMEOUT_MS, logger },
    plan.acceptElicitationWithDefaults ? { elicit: async (params) => acceptWithDefaults(params, log) } : {},
  );

  const abort = new AbortController();
  const watchdog = setTimeout(() => abort.abort(), OVERALL_TIMEOUT_MS);
  try {
    await withAbort(actOut(client, plan, context, log), abort.signal);
    log('done');
    return 0;
  } catch (err) {
    const reason = abort.signal.aborted ? `gave up after ${OVERALL_TIMEOUT_MS} ms` : describe(err);
    if (plan.failureExpected) {
      log(`stopped as expected: ${reason}`);
      return 1;
    }
    log(`failed: ${reason}`);
    return 1;
  } finally {
    clearTimeout(watchdog);
    await client.close().catch((err: unknown) => log(`close: ${describe(err)}`));
    client.dispose();
    await transport.close().catch(() => undefined);
    await auth.dispose();
  }
}

/** connect → tools/list → the plan's tool call → close, each step logged (without secrets). */
async function actOut(client: McpClient, plan: ScenarioPlan, context: ConformanceContext, log: (line: string) => void): Promise<void> {
  const init = await client.connect();
  log(`connected to ${init.serverInfo.name} ${init.serverInfo.version} (protocol ${init.protocolVersion})`);
  const tools = client.hasCapability('tools') ? await client.listAllTools() : [];
  log(`tools: ${tools.map((t) => t.name).join(', ') || 'none'}`);
  const call = async ({ name, args }: ToolCall) => {
    if (!tools.some((t) => t.name === name)) throw new Error(`the server does not list the tool ${name}`);
    const result = await client.callTool(name, args);
    const text = result.content.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : `[${c.type}]`)).join(' ');
    log(`${name}: ${result.isError ? 'tool error: ' : ''}${text.slice(0, 200)}`);
  };
  if (plan.tool) await call(plan.tool);
  if (plan.concurrent) await Promise.all(plan.concurrent.map(call));
  for (const c of plan.calls?.(tools, context) ?? []) await call(c);
  if (plan.browse && client.hasCapability('resources')) {
    const [first] = await client.listAllResources();
    log(`resources: ${first ? `${first.uri} …` : 'none'}`);
    if (first) log(`read ${first.uri}: ${(await client.readResource(first.uri)).contents.length} content(s)`);
  }
  if (plan.browse && client.hasCapability('prompts')) {
    const [first] = await client.listAllPrompts();
    log(`prompts: ${first ? `${first.name} …` : 'none'}`);
    if (first) log(`prompt ${first.name}: ${(await client.getPrompt(first.name)).messages.length} message(s)`);
  }
}

/**
 * The "browser" of a headless run: requests the authorization URL and follows its redirects
 * by hand until one reaches our loopback redirect URI, which delivers the code to the provider.
 * Logs origins and paths only: query strings carry state, codes and challenges.
 */
export function followRedirectsInteraction(log: (line: string) => void, maxHops = 10): AuthorizationInteraction {
  return {
    confirmSignIn: async (request) => {
      log(`signing in to ${request.authorizationServer}${request.scopes.length ? ` for ${request.scopes.join(' ')}` : ''}`);
      return true;
    },
    openBrowser: async (start: URL) => {
      let url = start;
      for (let hop = 0; hop < maxHops; hop++) {
        const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        await response.body?.cancel();
        log(`browser: GET ${url.origin}${url.pathname} -> ${response.status}`);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || !location) {
          if (response.status >= 400) throw new Error(`the authorization page answered ${response.status} at ${url.origin}${url.pathname}`);
          return;
        }
        url = new URL(location, url);
      }
      throw new Error(`the authorization flow redirected more than ${maxHops} times`);
    },
  };
}

/**
 * Accepts an elicitation form as a person would who leaves every pre-filled field as it is:
 * each property's `default` becomes its value (SEP-1034).
 */
export async function acceptWithDefaults(params: Record<string, unknown>, log: (line: string) => void): Promise<Record<string, unknown>> {
  const content = defaultsOf(params.requestedSchema);
  log(`elicitation accepted with defaults for: ${Object.keys(content).join(', ') || 'nothing'}`);
  return { action: 'accept', content };
}

export function defaultsOf(schema: unknown): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  if (!isRecord(schema) || !isRecord(schema.properties)) return content;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (isRecord(property) && property.default !== undefined) content[name] = property.default;
  }
  return content;
}

interface ConformanceContext {
  client_id?: string;
  client_secret?: string;
  /** Calls a scenario asks for, with their arguments (http-custom-headers). */
  toolCalls?: ToolCall[];
}

function parseContext(raw: string | undefined): ConformanceContext {
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (!isRecord(parsed)) throw new Error('not a JSON object');
  const pick = (key: string) => {
    const v = parsed[key];
    if (v !== undefined && typeof v !== 'string') throw new Error(`${key} is not a string`);
    return v;
  };
  const calls = parsed.toolCalls;
  if (calls !== undefined && !(Array.isArray(calls) && calls.every((c) => isRecord(c) && typeof c.name === 'string' && (c.arguments === undefined || isRecord(c.arguments))))) {
    throw new Error('toolCalls is not a list of {name, arguments}');
  }
  const toolCalls = calls?.map((c: Record<string, unknown>) => ({ name: c.name as string, args: (c.arguments ?? {}) as Record<string, unknown> }));
  return { client_id: pick('client_id'), client_secret: pick('client_secret'), ...(toolCalls ? { toolCalls } : {}) };
}

function withAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function describe(err: unknown): string {
  if (err instanceof RemoteError) return `${err.method} answered error ${err.code}: ${err.message}`;
  return errorMessage(err);
}

