import type { IncomingRequestContext } from './connection';
import { ErrorCode, McpError, RequestCancelledError } from './errors';
import { formatZodError } from './jsonrpc';
import { InputRequiredResultSchema, type InputRequest } from './schemas';
import type { ClientRequestHandlers } from './handlers';

/** Methods whose results may be `input_required` (basic/patterns/mrtr.mdx, Supported Requests). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A server that keeps asking is stopped after this many rounds. */
export const MAX_MRTR_ROUNDS = 16;

export interface MrtrRun {
  method: string;
  label: string;
  params: Record<string, unknown>;
  handlers: ClientRequestHandlers;
  signal: AbortSignal | undefined;
  /** Sends one round (a new request, so a new id) and resolves with its raw result. */
  send: (params: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

/**
 * Multi round-trip requests: while the server answers `input_required`, its `inputRequests` are
 * answered through the same handlers that answer legacy server requests (so the editor's forms,
 * sampling consent and roots work unchanged), and the request is sent again with the
 * `inputResponses` and the `requestState` exactly as received. Resolves with the final result.
 */
export async function runMrtr(run: MrtrRun): Promise<Record<string, unknown>> {
  let params = run.params;
  for (let round = 1; ; round++) {
    const result = await run.send(params);
    if (result.resultType !== 'input_required') return result;
    if (round >= MAX_MRTR_ROUNDS) {
      throw new McpError(
        ErrorCode.InvalidResult,
        `${run.label} asked for more input ${MAX_MRTR_ROUNDS} times in a row for ${run.method}; stopped asking`,
      );
    }
    const parsed = InputRequiredResultSchema.safeParse(result);
    if (!parsed.success) {
      throw new McpError(ErrorCode.InvalidResult, `${run.label} sent an invalid input_required result for ${run.method}: ${formatZodError(parsed.error)}`);
    }
    const { inputRequests, requestState } = parsed.data;
    const next: Record<string, unknown> = { ...run.params };
    if (inputRequests && Object.keys(inputRequests).length > 0) {
      next.inputResponses = await answerInputRequests(run, inputRequests);
    }
    // Echoed untouched; never sent when the server did not send one (mrtr.mdx, client rule 2).
    if (requestState !== undefined) next.requestState = requestState;
    throwIfAborted(run);
    params = next;
  }
}

/** One by one: each may open a form or ask for consent, and a person answers one at a time. */
async function answerInputRequests(run: MrtrRun, requests: Record<string, InputRequest>): Promise<Record<string, unknown>> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    throwIfAborted(run);
    const context: IncomingRequestContext = {
      id: key,
      method: request.method,
      signal: run.signal ?? NEVER_ABORTED,
      meta: request.params?._meta as Record<string, unknown> | undefined,
    };
    // A handler that does not watch the signal must not hold up a cancel.
    responses[key] = await untilAborted(answerOne(run, request, context), run);
  }
  return responses;
}

function answerOne(run: MrtrRun, request: InputRequest, context: IncomingRequestContext): Promise<unknown> {
  return answerInputRequest(run.handlers, run.label, run.method, request, context);
}

/** Answers one input request (elicitation, sampling, roots) with the installed handlers. */
export async function answerInputRequest(
  handlers: ClientRequestHandlers,
  label: string,
  forMethod: string,
  request: InputRequest,
  context: IncomingRequestContext,
): Promise<Record<string, unknown>> {
  const params = request.params ?? {};
  const { listRoots, createMessage, elicit } = handlers;
  switch (request.method) {
    case 'elicitation/create':
      if (elicit) return elicit(params, context);
      break;
    case 'sampling/createMessage':
      if (createMessage) return createMessage(params, context);
      break;
    case 'roots/list':
      if (listRoots) return { roots: await listRoots(context) };
      break;
  }
  throw new InputNotOfferedError(label, forMethod, request);
}

/**
 * An `input_required` answer asked for something this client does not answer here (the CLI
 * declines forms and sampling): nothing more is sent; the request ends with this error.
 */
export class InputNotOfferedError extends McpError {
  override name = 'InputNotOfferedError';
  constructor(
    label: string,
    readonly forMethod: string,
    readonly request: InputRequest,
  ) {
    super(ErrorCode.InvalidResult, `${label} needs ${request.method} answered to complete ${forMethod}, which this client did not offer`, {
      method: request.method,
    });
  }

  /** What the server asked, for a person: the form's message, if any. */
  get question(): string | undefined {
    const message = this.request.params?.message;
    return typeof message === 'string' ? message : undefined;
  }
}

function untilAborted<T>(work: Promise<T>, run: MrtrRun): Promise<T> {
  const signal = run.signal;
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      try {
        throwIfAborted(run);
      } catch (err) {
        reject(err as Error);
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort(); // aborted by the handler itself, before the listener
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function throwIfAborted(run: MrtrRun): void {
  const signal = run.signal;
  if (!signal?.aborted) return;
  const reason: unknown = signal.reason;
  throw new RequestCancelledError(run.method, reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled by the caller');
}

const NEVER_ABORTED = new AbortController().signal;
