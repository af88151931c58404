import * as os from 'node:os';

/**
 * The user's home directory: HOME, else the system's record of the user; undefined when neither
 * exists (os.homedir() throws for a user without a passwd entry, as in some containers). A file
 * kept under it (tokens, eras, npm's cache) is then not kept, and nothing fails for want of it.
 */
export function homeDirectory(env: NodeJS.ProcessEnv): string | undefined {
  if (env.HOME) return env.HOME;
  try {
    return os.homedir();
  } catch {
    return undefined;
  }
}
