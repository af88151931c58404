import * as os from 'node:os';
import * as path from 'node:path';

/** MCP hosts whose configuration files (the `mcpServers` format) can be read or imported. */
export type OtherHost = 'claudeDesktop' | 'claudeCode' | 'cursor' | 'cline';

export const OTHER_HOSTS: readonly OtherHost[] = ['claudeDesktop', 'claudeCode', 'cursor', 'cline'];

export interface OtherHostFile {
  readonly host: OtherHost;
  readonly file: string;
  /** Set for per-project files; those are workspace-defined (workspace trust applies). */
  readonly workspaceFolder?: string;
  readonly label: string;
}

const HOST_NAMES: Record<OtherHost, string> = {
  claudeDesktop: 'Claude Desktop',
  claudeCode: 'Claude Code',
  cursor: 'Cursor',
  cline: 'Cline',
};

/** Where the Claude Desktop app keeps its configuration on each platform. */
export function claudeDesktopConfigPath(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Claude', 'claude_desktop_config.json');
}

/**
 * The files of other MCP hosts that may hold servers, for the given workspace folders.
 * `globalStorageDir` is this extension's global storage folder: Cline keeps its settings
 * beside it, in its own extension's folder.
 */
export function otherHostFiles(hosts: readonly OtherHost[], folders: readonly string[], globalStorageDir: string | undefined, home = os.homedir()): OtherHostFile[] {
  const files: OtherHostFile[] = [];
  for (const host of hosts) {
    const name = HOST_NAMES[host];
    switch (host) {
      case 'claudeDesktop':
        files.push({ host, file: claudeDesktopConfigPath(process.platform, process.env, home), label: name });
        break;
      case 'claudeCode':
        for (const folder of folders) files.push({ host, file: path.join(folder, '.mcp.json'), workspaceFolder: folder, label: `${name} (.mcp.json)` });
        break;
      case 'cursor':
        for (const folder of folders) files.push({ host, file: path.join(folder, '.cursor', 'mcp.json'), workspaceFolder: folder, label: `${name} (.cursor/mcp.json)` });
        files.push({ host, file: path.join(home, '.cursor', 'mcp.json'), label: `${name} (~/.cursor/mcp.json)` });
        break;
      case 'cline':
        if (globalStorageDir) {
          files.push({ host, file: path.join(path.dirname(globalStorageDir), 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json'), label: name });
        }
        break;
    }
  }
  return files;
}
