import type { ProtocolEra } from '../../protocol/era';
import type { ServerDefinition } from '../config';

/**
 * The era learned for one definition: a server that closed on the server/discover probe and then
 * ran as legacy is started as legacy again, until its configuration changes (versioning.mdx).
 * Stdio only in practice: a remote server's era is remembered by the client layer for the whole
 * process, per endpoint (protocol/eraCache.ts), and an HTTP probe never closes the connection.
 */
export class EraMemory {
  private learned: { definitionKey: string; era: ProtocolEra } | undefined;

  /** The era learned for this definition, if any. */
  forDefinition(definition: ServerDefinition | undefined): ProtocolEra | undefined {
    if (!definition || this.learned?.definitionKey !== JSON.stringify(definition)) return undefined;
    return this.learned.era;
  }

  /** Remembers that this definition ran as legacy although it did not ask for it. */
  remember(definition: ServerDefinition, era: ProtocolEra): void {
    this.learned = { definitionKey: JSON.stringify(definition), era };
  }
}
