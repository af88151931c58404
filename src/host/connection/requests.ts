import type { McpClient } from '../../protocol/client';
import type { RequestOptions } from '../../protocol/connection';
import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult, ServerCapabilities } from '../../protocol/schemas';
import type { TaskCallOptions, TaskInfo } from '../../protocol/tasks';
import * as z from '../../protocol/zod';
import type { TrafficOrigin } from '../traffic';
import { sendOnBehalfOf } from './protocolTrace';
import { ServerNotRunningError, type ServerState } from './state';

/**
 * What the editor and the gateway ask of a running server (ServerConnection is one of these): the
 * editor floor talks to the connection, never to the client behind it. A request while the server
 * is not running is refused with ServerNotRunningError, and nothing is sent.
 */
export abstract class RunningServerRequests {
  abstract readonly name: string;
  abstract get state(): ServerState;

  /** The client while running, else undefined. */
  get client(): McpClient | undefined {
    return this.state.kind === 'running' ? this.state.client : undefined;
  }

  /** Requests sent to the running server and not answered yet, ours and relayed ones (0 when not running). */
  get requestsInFlight(): number {
    return this.client?.connection.pendingCount ?? 0;
  }

  /** Whether the running server declared a capability (false when it is not running). */
  hasCapability(capability: keyof ServerCapabilities): boolean {
    return this.client?.hasCapability(capability) ?? false;
  }

  callTool(name: string, args: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    return this.runningClient().callTool(name, args, options);
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.runningClient().readResource(uri, options);
  }

  /** A tool call that runs as a task, followed to its result (protocol/tasks.ts). */
  callToolAsTask(name: string, args: Record<string, unknown>, options?: TaskCallOptions): Promise<CallToolResult> {
    return this.runningClient().callToolAsTask(name, args, options);
  }

  getTask(taskId: string, options?: RequestOptions): Promise<TaskInfo> {
    return this.runningClient().tasks.getTask(taskId, options);
  }

  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.runningClient().subscribeResource(uri, options);
  }

  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.runningClient().unsubscribeResource(uri, options);
  }

  getPrompt(name: string, args: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    return this.runningClient().getPrompt(name, args, options);
  }

  /** completion/complete: the arguments are the client's (McpClient.complete). */
  complete(...args: Parameters<McpClient['complete']>): Promise<CompleteResult> {
    return this.runningClient().complete(...args);
  }

  /**
   * Sends any request of another client (the gateway) the way our own go, era rules included, and
   * returns its result unchecked: the other client validates it.
   */
  relayRequest(method: string, params: Record<string, unknown> | undefined, options?: RequestOptions, origin?: TrafficOrigin): Promise<Record<string, unknown>> {
    const client = this.runningClient();
    // The traffic ring marks what is sent on this call's behalf with who asked.
    return sendOnBehalfOf(origin, () => client.sendRequest(method, params, z.record(z.string(), z.unknown()), options));
  }

  /** Tells the running server the workspace roots changed; nothing to tell when it is not running. */
  async notifyRootsChanged(): Promise<void> {
    await this.client?.notifyRootsChanged();
  }

  /** The client of the running server, or a rejection a person can read (nothing was sent). */
  private runningClient(): McpClient {
    const client = this.client;
    if (!client) throw new ServerNotRunningError(this.name, this.state.kind);
    return client;
  }

}
