// The client's handlers for a server's own requests: used by client.ts, mrtr.ts and tasks.ts
// (here so those need not import client.ts, which imports them).
import type { IncomingRequestContext } from './connection';
import type { Root } from './schemas';

/** Handlers for the requests a server may send to its client. */
export interface ClientRequestHandlers {
  listRoots?: (context: IncomingRequestContext) => Promise<Root[]> | Root[];
  createMessage?: (params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>;
  elicit?: (params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>;
}
