// The client's handlers for a server's own requests: used by client.ts, mrtr.ts and tasks.ts
// (here so those need not import client.ts, which imports them).
import type { Disposable } from '../util/disposable';
import type { IncomingRequestContext, JsonRpcConnection } from './connection';
import { McpError, ErrorCode } from './errors';
import type { Root } from './schemas';

/** Handlers for the requests a server may send to its client. */
export interface ClientRequestHandlers {
  listRoots?: (context: IncomingRequestContext) => Promise<Root[]> | Root[];
  createMessage?: (params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>;
  elicit?: (params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>;
}

/** Answers a server's roots, sampling and elicitation requests; one the client has no handler for is refused. */
export function installClientHandlers(connection: JsonRpcConnection, handlers: ClientRequestHandlers): Disposable[] {
  const { listRoots, createMessage, elicit } = handlers;
  const unsupported = (method: string, capability: string) => () => {
    throw new McpError(ErrorCode.MethodNotFound, `This client does not support ${method} (no '${capability}' capability was declared)`);
  };
  return [
    connection.setRequestHandler('roots/list', listRoots ? async (_params, ctx) => ({ roots: await listRoots(ctx) }) : unsupported('roots/list', 'roots')),
    connection.setRequestHandler(
      'sampling/createMessage',
      createMessage ? (params, ctx) => createMessage(params, ctx) : unsupported('sampling/createMessage', 'sampling'),
    ),
    connection.setRequestHandler('elicitation/create', elicit ? (params, ctx) => elicit(params, ctx) : unsupported('elicitation/create', 'elicitation')),
  ];
}
