import * as z from './zod';
import type { ZodSchema } from './zod';
import { registerDispatchCheck } from './fast-check';

const opt = z.optional;

/**
 * The MCP result shapes this client reads, validated at the boundary. Objects are
 * loose (unknown members kept) so newer servers keep working; what we rely on is checked.
 */

const Meta = opt(z.record(z.string(), z.unknown()));

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: opt(z.string()),
  description: opt(z.string()),
  websiteUrl: opt(z.string()),
});
export type Implementation = z.infer<typeof ImplementationSchema>;

const CapabilityObject = opt(z.looseObject({}));

export const ServerCapabilitiesSchema = z.looseObject({
  experimental: opt(z.record(z.string(), z.unknown())),
  logging: CapabilityObject,
  completions: CapabilityObject,
  prompts: opt(z.looseObject({ listChanged: opt(z.boolean()) })),
  resources: opt(z.looseObject({ subscribe: opt(z.boolean()), listChanged: opt(z.boolean()) })),
  tools: opt(z.looseObject({ listChanged: opt(z.boolean()) })),
  tasks: CapabilityObject,
});
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;

export interface ClientCapabilities {
  experimental?: Record<string, unknown>;
  roots?: { listChanged?: boolean };
  sampling?: Record<string, unknown>;
  elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
  [key: string]: unknown;
}

export const InitializeResultSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: opt(z.string()),
  _meta: Meta,
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

const Icons = opt(z.array(z.looseObject({ src: z.string() })));

const AnnotationsSchema = opt(
  z.looseObject({
    audience: opt(z.array(z.string())),
    priority: opt(z.number()),
    lastModified: opt(z.string()),
  }),
);

export const ToolAnnotationsSchema = z.looseObject({
  title: opt(z.string()),
  readOnlyHint: opt(z.boolean()),
  destructiveHint: opt(z.boolean()),
  idempotentHint: opt(z.boolean()),
  openWorldHint: opt(z.boolean()),
});

export const ToolSchema = z.looseObject({
  name: z.string(),
  title: opt(z.string()),
  description: opt(z.string()),
  inputSchema: z.looseObject({}),
  outputSchema: opt(z.looseObject({})),
  annotations: opt(ToolAnnotationsSchema),
  icons: Icons,
  _meta: Meta,
});
export type Tool = z.infer<typeof ToolSchema>;

export const ResourceSchema = z.looseObject({
  uri: z.string(),
  name: z.string(),
  title: opt(z.string()),
  description: opt(z.string()),
  mimeType: opt(z.string()),
  size: opt(z.number()),
  annotations: AnnotationsSchema,
  icons: Icons,
  _meta: Meta,
});
export type Resource = z.infer<typeof ResourceSchema>;

export const ResourceTemplateSchema = z.looseObject({
  uriTemplate: z.string(),
  name: z.string(),
  title: opt(z.string()),
  description: opt(z.string()),
  mimeType: opt(z.string()),
  annotations: AnnotationsSchema,
  icons: Icons,
  _meta: Meta,
});
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

export const PromptArgumentSchema = z.looseObject({
  name: z.string(),
  title: opt(z.string()),
  description: opt(z.string()),
  required: opt(z.boolean()),
});

export const PromptSchema = z.looseObject({
  name: z.string(),
  title: opt(z.string()),
  description: opt(z.string()),
  arguments: opt(z.array(PromptArgumentSchema)),
  icons: Icons,
  _meta: Meta,
});
export type Prompt = z.infer<typeof PromptSchema>;

export const TextResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: opt(z.string()),
  text: z.string(),
  _meta: Meta,
});
export const BlobResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: opt(z.string()),
  blob: z.string(),
  _meta: Meta,
});
export const ResourceContentsSchema = z.union([TextResourceContentsSchema, BlobResourceContentsSchema]);
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;
export type ResourceContents = TextResourceContents | BlobResourceContents;

export const TextContentSchema = z.looseObject({ type: z.literal('text'), text: z.string(), annotations: AnnotationsSchema, _meta: Meta });
export const ImageContentSchema = z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string(), annotations: AnnotationsSchema, _meta: Meta });
export const AudioContentSchema = z.looseObject({ type: z.literal('audio'), data: z.string(), mimeType: z.string(), annotations: AnnotationsSchema, _meta: Meta });
export const ResourceLinkSchema = z.extend(ResourceSchema, { type: z.literal('resource_link') });
export const EmbeddedResourceSchema = z.looseObject({ type: z.literal('resource'), resource: ResourceContentsSchema, annotations: AnnotationsSchema, _meta: Meta });

export type TextContent = z.infer<typeof TextContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type AudioContent = z.infer<typeof AudioContentSchema>;
export type ResourceLink = z.infer<typeof ResourceLinkSchema>;
export type EmbeddedResource = z.infer<typeof EmbeddedResourceSchema>;
/** A content block of a type this client does not know (a newer protocol); shown, not rejected. */
export interface UnknownContent {
  type: string;
  [key: string]: unknown;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

// A Map, not an object literal: a block whose type is "constructor" or "toString" must not find
// Object.prototype's members here (it used to, and the check then threw).
const knownContent = new Map<string, ZodSchema<unknown>>([
  ['text', TextContentSchema],
  ['image', ImageContentSchema],
  ['audio', AudioContentSchema],
  ['resource_link', ResourceLinkSchema],
  ['resource', EmbeddedResourceSchema],
]);

/** Known content types are validated strictly; an unknown type passes through as UnknownContent. */
export const ContentBlockSchema = z.looseObject({ type: z.string() }).check((ctx) => {
  const schema = knownContent.get(ctx.value.type);
  if (!schema) return;
  const result = schema.safeParse(ctx.value);
  if (!result.success) {
    for (const issue of result.error.issues) {
      ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: ctx.value });
    }
  }
}) as unknown as ZodSchema<ContentBlock | UnknownContent>;
// Performance: tells the compiled fast path (fast-check.ts) what the check above does, so a
// content block is validated without zod's copies. Keep the two in step.
registerDispatchCheck(ContentBlockSchema, 'type', knownContent);

export const CallToolResultSchema = z.looseObject({
  content: z._default(z.array(ContentBlockSchema), []),
  structuredContent: opt(z.record(z.string(), z.unknown())),
  isError: opt(z.boolean()),
  _meta: Meta,
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

function paginated(key: string, item: ZodSchema<unknown>) {
  return z.looseObject({ [key]: z.array(item), nextCursor: opt(z.string()), _meta: Meta });
}

export const ListToolsResultSchema = paginated('tools', ToolSchema) as unknown as ZodSchema<{ tools: Tool[]; nextCursor?: string } & CacheHints>;
export const ListResourcesResultSchema = paginated('resources', ResourceSchema) as unknown as ZodSchema<{ resources: Resource[]; nextCursor?: string } & CacheHints>;
export const ListResourceTemplatesResultSchema = paginated('resourceTemplates', ResourceTemplateSchema) as unknown as ZodSchema<{
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
} & CacheHints>;
export const ListPromptsResultSchema = paginated('prompts', PromptSchema) as unknown as ZodSchema<{ prompts: Prompt[]; nextCursor?: string } & CacheHints>;

export const ReadResourceResultSchema = z.looseObject({ contents: z.array(ResourceContentsSchema), _meta: Meta });
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

export const PromptMessageSchema = z.looseObject({ role: z.enum(['user', 'assistant']), content: ContentBlockSchema });
export const GetPromptResultSchema = z.looseObject({ description: opt(z.string()), messages: z.array(PromptMessageSchema), _meta: Meta });
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

export const CompleteResultSchema = z.looseObject({
  completion: z.looseObject({ values: z.array(z.string()), total: opt(z.number()), hasMore: opt(z.boolean()) }),
  _meta: Meta,
});
export type CompleteResult = z.infer<typeof CompleteResultSchema>;

export const EmptyResultSchema = z.looseObject({ _meta: Meta });

export const LoggingLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LoggingLevels)[number];

export const LoggingMessageParamsSchema = z.looseObject({ level: z.enum(LoggingLevels), logger: opt(z.string()), data: z.unknown() });
export type LoggingMessageParams = z.infer<typeof LoggingMessageParamsSchema>;

export const ResourceUpdatedParamsSchema = z.looseObject({ uri: z.string() });

export interface Root {
  uri: string;
  name?: string;
}

export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

// --- the modern era (2026-07-28) -------------------------------------------

/** `ttlMs` / `cacheScope` of a cacheable result (server/utilities/caching.mdx). */
export interface CacheHints {
  ttlMs?: number;
  cacheScope?: 'public' | 'private' | string;
}

export const DiscoverResultSchema = z.looseObject({
  resultType: opt(z.string()),
  supportedVersions: z.array(z.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: opt(z.string()),
  ttlMs: opt(z.number()),
  cacheScope: opt(z.string()),
  _meta: Meta,
});
export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;

/** One server-to-client request inside an InputRequiredResult (MRTR). */
export const InputRequestSchema = z.looseObject({ method: z.string(), params: opt(z.record(z.string(), z.unknown())) });
export type InputRequest = z.infer<typeof InputRequestSchema>;

export const InputRequiredResultSchema = z.looseObject({
  resultType: z.literal('input_required'),
  inputRequests: opt(z.record(z.string(), InputRequestSchema)),
  requestState: opt(z.string()),
  _meta: Meta,
});
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;

export const SubscriptionFilterSchema = z.looseObject({
  toolsListChanged: opt(z.boolean()),
  promptsListChanged: opt(z.boolean()),
  resourcesListChanged: opt(z.boolean()),
  resourceSubscriptions: opt(z.array(z.string())),
});
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;

export const SubscriptionsAcknowledgedParamsSchema = z.looseObject({ notifications: SubscriptionFilterSchema, _meta: Meta });
