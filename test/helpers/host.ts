import type { ConnectionEnvironment } from '../../src/host/serverConnection';
import { recordingLogger } from './servers';

/**
 * What the host floor's tests give a ServerConnection (or the registry, per entry): a recording
 * logger, a 10 s request timeout, no inputs, short shutdown graces; `overrides` for the rest.
 */
export function testEnvironment(logs: string[] = [], overrides: Partial<ConnectionEnvironment> = {}): ConnectionEnvironment {
  return {
    clientInfo: { name: 'mcp-host-tests', version: '0' },
    logger: recordingLogger(logs),
    traceEnabled: () => false,
    requestTimeoutMs: () => 10_000,
    serverLogLevel: () => undefined,
    inputs: () => [],
    handlers: {},
    processEnv: process.env,
    shutdown: { closeStdinGraceMs: 300, sigtermGraceMs: 300 },
    ...overrides,
  };
}
