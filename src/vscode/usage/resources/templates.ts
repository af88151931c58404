import { parse as parseUriTemplate } from 'uri-template';
import type { ServerConnection } from '../../../host/serverConnection';
import type { ResourceTemplate } from '../../../protocol/schemas';
import { usageServices } from '../../services';
import { completionSuggester } from './completion';
import { errorMessage } from '../../../util/errorMessage';

export interface TemplateVariable {
  name: string;
  /** The RFC 6570 operator of its expression: '' (simple), '+', '#', '.', '/', ';', '?', '&'. */
  operator: string;
}

const OPERATOR_HINT: Record<string, string> = {
  '': '',
  '+': ' (reserved characters such as "/" are kept)',
  '#': ' (fragment)',
  '.': ' (label, after a ".")',
  '/': ' (path segment)',
  ';': ' (path parameter)',
  '?': ' (query parameter)',
  '&': ' (query parameter)',
};

/** The variables of an RFC 6570 template, in order of first appearance; throws on a malformed template. */
export function templateVariables(uriTemplate: string): TemplateVariable[] {
  const seen = new Set<string>();
  const out: TemplateVariable[] = [];
  for (const part of parseUriTemplate(uriTemplate).ast.parts) {
    if (part.type !== 'expression') continue;
    for (const v of part.variables) {
      if (seen.has(v.name)) continue;
      seen.add(v.name);
      out.push({ name: v.name, operator: part.operator });
    }
  }
  return out;
}

/** Expands a template; an empty value leaves its variable undefined (so `{?q}` disappears). */
export function expandTemplate(uriTemplate: string, values: Record<string, string>): string {
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== '') defined[k] = v;
  return parseUriTemplate(uriTemplate).expand(defined);
}

/**
 * Asks for each variable of a template (with completion/complete suggestions when the server
 * has the `completions` capability) and returns the resource URI, or undefined when dismissed.
 */
export async function fillTemplate(server: ServerConnection, template: ResourceTemplate, preset: Record<string, string> = {}): Promise<string | undefined> {
  let variables: TemplateVariable[];
  try {
    variables = templateVariables(template.uriTemplate);
  } catch (err) {
    throw new Error(`the template ${template.uriTemplate} of "${server.name}" is not a valid RFC 6570 URI template: ${errorMessage(err)}`);
  }
  const values: Record<string, string> = {};
  const label = template.title ?? template.name;
  for (let i = 0; i < variables.length; i++) {
    const v = variables[i];
    if (preset[v.name] !== undefined) {
      values[v.name] = preset[v.name];
      continue;
    }
    const answer = await usageServices.prompter.inputWithSuggestions({
      key: `template.var:${v.name}`,
      title: `${server.name} · ${label} (${i + 1}/${variables.length})`,
      prompt: `Value of {${v.name}}${OPERATOR_HINT[v.operator] ?? ''} in ${template.uriTemplate}`,
      placeHolder: `${v.name} for ${template.uriTemplate}`,
      suggest: completionSuggester(server, { type: 'ref/resource', uri: template.uriTemplate }, v.name, () => ({ ...values })),
    });
    if (answer === undefined) return undefined;
    values[v.name] = answer;
  }
  return expandTemplate(template.uriTemplate, values);
}
