// One running server's report, from its lists and the servers running beside it.
import { checkDuplicateNames, checkListErrors, checkSize, checkNamesSharedWithPeers, checkPrompt, checkResource, checkTemplate, checkTool } from './checks';
import { gradeOf, scoreOfFindings, sortFindings, summarise, type ReportInput, type ServerReport } from './model';
import type { SchemaValidator } from './schemaValidity';
import { toolCosts } from './tokens';

/** How many of the costliest tools the report names. */
export const LARGEST_TOOLS = 5;

export function buildServerReport(input: ReportInput, validator: SchemaValidator): ServerReport {
  const { server, lists, peers } = input;
  const tokens = toolCosts(lists.tools);
  const findings = sortFindings([
    ...checkListErrors(lists.errors),
    ...checkSize(server.name, lists.tools.length, tokens.tokens),
    ...checkDuplicateNames(lists.tools),
    ...lists.tools.flatMap((tool) => checkTool(tool, validator, server.protocolVersion)),
    ...checkNamesSharedWithPeers(lists.tools, peers),
    ...lists.prompts.flatMap(checkPrompt),
    ...lists.resources.flatMap(checkResource),
    ...lists.resourceTemplates.flatMap(checkTemplate),
  ]);
  const summary = summarise(findings);
  const score = scoreOfFindings(findings);
  return {
    server: { name: server.name, implementation: server.serverInfo?.name, title: server.serverInfo?.title, version: server.serverInfo?.version, protocolVersion: server.protocolVersion },
    counts: { tools: lists.tools.length, prompts: lists.prompts.length, resources: lists.resources.length, resourceTemplates: lists.resourceTemplates.length },
    tokens,
    largestTools: tokens.perTool.slice(0, LARGEST_TOOLS),
    findings,
    summary,
    score,
    grade: gradeOf(score),
  };
}
