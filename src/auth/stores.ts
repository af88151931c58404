// SecretStore implementations for the CLI and tests. The editor uses VS Code's SecretStorage.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporaryNameFor } from '../util/temporaryFile';
import type { SecretStore } from './types';

export class MemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();

  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
  /** The keys held, for tests and diagnostics (never the values). */
  keys(): string[] {
    return [...this.values.keys()];
  }
}

/**
 * One JSON object in an owner-only file (0600, directory 0700), replaced atomically on every
 * write (temporary file + rename) so a crash never leaves half a file. Writes are serialised
 * so two concurrent stores cannot lose each other's key.
 */
export class FileSecretStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  async get(key: string): Promise<string | undefined> {
    await this.queue.catch(() => undefined);
    const all = await this.read();
    const v = all[key];
    return typeof v === 'string' ? v : undefined;
  }

  store(key: string, value: string): Promise<void> {
    return this.update((all) => {
      all[key] = value;
    });
  }

  delete(key: string): Promise<void> {
    return this.update((all) => {
      delete all[key];
    });
  }

  private update(change: (all: Record<string, unknown>) => void): Promise<void> {
    const next = this.queue
      .catch(() => undefined)
      .then(async () => {
        const all = await this.read();
        change(all);
        await this.write(all);
      });
    this.queue = next;
    return next;
  }

  private async read(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      // A damaged file is treated as empty: the next write replaces it. Its content is not echoed.
      return {};
    }
  }

  private async write(all: Record<string, unknown>): Promise<void> {
    const dir = path.dirname(this.file);
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = temporaryNameFor(this.file);
    try {
      await fs.promises.writeFile(tmp, JSON.stringify(all, null, 2), { mode: 0o600, flag: 'wx' });
      await fs.promises.rename(tmp, this.file);
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
    // rename keeps the temporary file's 0600; chmod covers a file that existed with wider bits.
    await fs.promises.chmod(this.file, 0o600).catch(() => undefined);
  }
}
