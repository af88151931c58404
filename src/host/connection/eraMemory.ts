import type { ProtocolEra } from '../../protocol/era';
import type { ServerDefinition } from '../config';

/**
 * The era learned for one definition: a server that closed on the server/discover probe and then
 * ran as legacy is started as legacy again, until its configuration changes (versioning.mdx).
 */
export class EraMemory {
  private learned: { definitionKey: string; era: ProtocolEra } | undefined;
  /** A remote server in 'auto' that answered the probe as legacy (see legacyOverHttp). */
  private answeredLegacy: string | undefined;

  /** The era learned for this definition, if any. */
  forDefinition(definition: ServerDefinition | undefined): ProtocolEra | undefined {
    if (!definition || this.learned?.definitionKey !== JSON.stringify(definition)) return undefined;
    return this.learned.era;
  }

  /** Remembers that this definition ran as legacy although it did not ask for it. */
  remember(definition: ServerDefinition, era: ProtocolEra): void {
    this.learned = { definitionKey: JSON.stringify(definition), era };
  }

  /**
   * True when this remote definition, in 'auto', ran as legacy last time: its next session starts
   * with `initialize` (one HTTP round trip less than probing with server/discover first).
   */
  legacyOverHttp(definition: ServerDefinition): boolean {
    return definition.type !== 'stdio' && this.answeredLegacy === JSON.stringify(definition);
  }

  /** What an 'auto' session of a remote definition ran as; a failed session forgets it (forgetHttpEra). */
  rememberHttpEra(definition: ServerDefinition, era: ProtocolEra): void {
    if (definition.type === 'stdio') return;
    this.answeredLegacy = era === 'legacy' ? JSON.stringify(definition) : undefined;
  }

  forgetHttpEra(): void {
    this.answeredLegacy = undefined;
  }
}
