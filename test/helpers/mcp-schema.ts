import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { REPO_ROOT } from './paths';

/** The official MCP JSON Schemas the repository carries (see the README there for their source and licence). */
export const MCP_SCHEMA_DIR = path.resolve(REPO_ROOT, 'test', 'schemas', 'mcp');

export function schemaAvailable(version: string): boolean {
  return fs.existsSync(path.join(MCP_SCHEMA_DIR, version, 'schema.json'));
}

/**
 * Validates recorded messages the way the spec README says: requests and
 * notifications against the definition whose `method` const matches, results
 * against the `<Name>Result` of the request they answer.
 */
export class McpSchemaValidator {
  private readonly ajv: Ajv;
  private readonly defsKey: string;
  private readonly defs: Record<string, any>;
  private readonly byMethod = new Map<string, string>();
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly version: string) {
    const file = path.join(MCP_SCHEMA_DIR, version, 'schema.json');
    const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
    this.defsKey = schema.$defs ? '$defs' : 'definitions';
    this.defs = schema[this.defsKey];
    this.ajv = schema.$defs ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv as any);
    const { $schema: _ignored, ...rest } = schema;
    this.ajv.addSchema(rest, 'mcp');
    for (const [name, def] of Object.entries(this.defs)) {
      const method = def?.properties?.method?.const;
      if (typeof method === 'string') {
        // Prefer concrete messages over abstract bases.
        if (!this.byMethod.has(method) || name.endsWith('Request') || name.endsWith('Notification')) this.byMethod.set(method, name);
      }
    }
  }

  hasDefinition(name: string): boolean {
    return name in this.defs;
  }

  definitionForMethod(method: string): string | undefined {
    return this.byMethod.get(method);
  }

  /** The result definition for a request method, e.g. tools/call -> CallToolResult. */
  resultDefinitionFor(method: string): string | undefined {
    const request = this.byMethod.get(method);
    if (!request) return undefined;
    const candidate = request.replace(/Request$/, 'Result');
    if (this.hasDefinition(candidate)) return candidate;
    return this.hasDefinition('EmptyResult') ? 'EmptyResult' : 'Result';
  }

  /**
   * Validates every message of a session, as recorded by the client's onTrace: requests and
   * notifications against their method's definition, results against the request's result.
   */
  validateTranscript(trace: ReadonlyArray<{ direction: 'send' | 'receive'; message: any }>): { problems: string[]; checked: number; seenMethods: Set<string> } {
    const methodsById = new Map<string, string>(); // "direction:id" of the request -> method
    const problems: string[] = [];
    const seenMethods = new Set<string>();
    let checked = 0;
    for (const { direction, message } of trace) {
      for (const m of Array.isArray(message) ? message : [message]) {
        if ('method' in m) {
          seenMethods.add(m.method);
          const def = this.definitionForMethod(m.method);
          if (!def && m.method === 'server/discover' && direction === 'send') {
            // The era probe of a dual-era client: a modern message a legacy schema does not know.
            if ('id' in m) methodsById.set(`${direction}:${m.id}`, m.method);
            continue;
          }
          if (!def) {
            problems.push(`${direction} ${m.method}: no definition in the schema`);
            continue;
          }
          // A task-augmented request (2025-11-25 tasks) is answered with a CreateTaskResult.
          if ('id' in m) methodsById.set(`${direction}:${m.id}`, m.params?.task !== undefined ? `${m.method}+task` : m.method);
          problems.push(...this.validate('id' in m ? 'JSONRPCRequest' : 'JSONRPCNotification', m).map((e) => `${direction} ${m.method}: ${e}`));
          problems.push(...this.validate(def, m).map((e) => `${direction} ${m.method}: ${e}`));
          checked++;
        } else if ('result' in m) {
          const method = methodsById.get(`${direction === 'receive' ? 'send' : 'receive'}:${m.id}`);
          if (!method) {
            problems.push(`${direction} result for unknown id ${m.id}`);
            continue;
          }
          // MRTR: an interim answer is an InputRequiredResult whatever the method.
          const resultDef = method.endsWith('+task')
            ? 'CreateTaskResult'
            : m.result?.resultType === 'input_required' && this.hasDefinition('InputRequiredResult')
              ? 'InputRequiredResult'
              : this.resultDefinitionFor(method)!;
          problems.push(...this.validate(resultDef, m.result).map((e) => `${direction} result of ${method}: ${e}`));
          checked++;
        } else if ('error' in m) {
          const def = this.hasDefinition('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError';
          problems.push(...this.validate(def, m).map((e) => `${direction} error: ${e}`));
          checked++;
        }
      }
    }
    return { problems, checked, seenMethods };
  }

  validate(definition: string, value: unknown): string[] {
    let fn = this.cache.get(definition);
    if (!fn) {
      fn = this.ajv.getSchema(`mcp#/${this.defsKey}/${definition}`);
      if (!fn) throw new Error(`no definition ${definition} in MCP schema ${this.version}`);
      this.cache.set(definition, fn);
    }
    if (fn(value)) return [];
    return (fn.errors ?? []).map((e) => `${definition}${e.instancePath} ${e.message}`);
  }
}
