import * as path from 'node:path';
import { homeDirectory } from '../util/homeDirectory';

/**
 * The CLI's folder for what it keeps between runs that can be made again (eras, compiled code):
 * $XDG_CACHE_HOME/mcp-host, else ~/.cache/mcp-host (a relative XDG_CACHE_HOME is ignored, as the
 * XDG spec says). Undefined when the home directory cannot be found.
 */
export function cliCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'mcp-host');
  const home = homeDirectory(env);
  // A relative HOME would put it under whatever folder the CLI runs in.
  return home === undefined || !path.isAbsolute(home) ? undefined : path.join(home, '.cache', 'mcp-host');
}
