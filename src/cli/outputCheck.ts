// `mcp-host call` checks a result's structuredContent against the tool's outputSchema, as the
// editor's result view does (the specification says clients should). The verdict goes to stderr
// and, with --json, into the output as `outputSchemaCheck`; the exit code does not change.
import type { McpClient } from '../protocol/client';
import type { CallToolResult, Tool } from '../protocol/schemas';
import { compileSchema, describePath } from '../host/validation';

export interface OutputSchemaCheck {
  /** 'missing': the tool declares an outputSchema and the result has no structuredContent. */
  status: 'valid' | 'invalid' | 'unchecked' | 'missing';
  /** Where the value fails (a JSON Pointer into structuredContent) and the schema keyword that fails. */
  issues: Array<{ path: string; keyword?: string; message: string }>;
  /** What was not checked (a schema that cannot be compiled, a pattern RE2 cannot run). */
  notes: string[];
}

/** The check of one result; undefined when the tool declares no outputSchema (or the result is an error). */
export async function checkOutput(tool: Tool | undefined, result: CallToolResult): Promise<OutputSchemaCheck | undefined> {
  if (!tool?.outputSchema || result.isError === true) return undefined;
  if (result.structuredContent === undefined) return { status: 'missing', issues: [], notes: [] };
  const compiled = await compileSchema(tool.outputSchema);
  if (compiled.kind !== 'ok') return { status: 'unchecked', issues: [], notes: [compiled.message] };
  const issues = compiled.validate(result.structuredContent).map(({ path, keyword, message }) => ({ path, ...(keyword ? { keyword } : {}), message }));
  return { status: issues.length > 0 ? 'invalid' : 'valid', issues, notes: compiled.notes };
}

/** The tool as the server lists it; undefined when it is not listed or the list fails. */
export async function findTool(client: McpClient, name: string): Promise<Tool | undefined> {
  if (!client.hasCapability('tools')) return undefined;
  try {
    return (await client.listAllTools()).find((t) => t.name === name);
  } catch {
    return undefined;
  }
}

/** What a person reads on stderr: nothing when the result matches and everything was checked. */
export function describeOutputCheck(check: OutputSchemaCheck, toolName: string): string {
  const tool = JSON.stringify(toolName);
  const lines: string[] = [];
  if (check.status === 'missing') lines.push(`mcp-host: tool ${tool} declares an outputSchema, but the result has no structuredContent`);
  if (check.status === 'invalid') {
    lines.push(`mcp-host: the structuredContent of tool ${tool} does not match its outputSchema:`);
    for (const issue of check.issues) lines.push(`  ${issue.path || '/'} (${describePath(issue.path)}) ${issue.message}${issue.keyword ? ` [${issue.keyword}]` : ''}`);
  }
  if (check.status === 'unchecked') lines.push(`mcp-host: the structuredContent of tool ${tool} was not checked: ${check.notes.join('; ')}`);
  else for (const note of check.notes) lines.push(`mcp-host: outputSchema of tool ${tool}: ${note}`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
