// What a server's tool definitions cost a model: every definition is sent with every request.
import type { Tool } from '../../protocol/schemas';
import type { ToolCost } from './model';

/** The estimate's rule, said in the report: about four characters of JSON per token. */
export const CHARACTERS_PER_TOKEN = 4;

/** The part of a tool a model is given: name, description, schemas and annotations, as JSON. */
export function modelVisibleDefinition(tool: Tool): string {
  const { name, description, inputSchema, outputSchema, annotations } = tool;
  return JSON.stringify({ name, description, inputSchema, outputSchema, annotations });
}

export function estimateTokens(characters: number): number {
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

export function toolCost(tool: Tool): ToolCost {
  const characters = modelVisibleDefinition(tool).length;
  return { name: tool.name, characters, tokens: estimateTokens(characters) };
}

/** Every tool's cost (most expensive first) and the total. */
export function toolCosts(tools: readonly Tool[]): { characters: number; tokens: number; perTool: ToolCost[] } {
  const perTool = tools.map(toolCost).sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name));
  const characters = perTool.reduce((sum, cost) => sum + cost.characters, 0);
  return { characters, tokens: estimateTokens(characters), perTool };
}
