import { z } from 'zod';

/**
 * The MCP result shapes this client reads, validated at the boundary. Objects are
 * loose (unknown members kept) so newer servers keep working; what we rely on is checked.
 */

const Meta = z.record(z.string(), z.unknown()).optional();

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  websiteUrl: z.string().optional(),
});
export type Implementation = z.infer<typeof ImplementationSchema>;

const CapabilityObject = z.looseObject({}).optional();

export const ServerCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), z.unknown()).optional(),
  logging: CapabilityObject,
  completions: CapabilityObject,
  prompts: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
  resources: z.looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() }).optional(),
  tools: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
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
  instructions: z.string().optional(),
  _meta: Meta,
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

const Icons = z.array(z.looseObject({ src: z.string() })).optional();

const AnnotationsSchema = z
  .looseObject({
    audience: z.array(z.string()).optional(),
    priority: z.number().optional(),
    lastModified: z.string().optional(),
  })
  .optional();

export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

export const ToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.looseObject({}),
  outputSchema: z.looseObject({}).optional(),
  annotations: ToolAnnotationsSchema.optional(),
  icons: Icons,
  _meta: Meta,
});
export type Tool = z.infer<typeof ToolSchema>;

export const ResourceSchema = z.looseObject({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  annotations: AnnotationsSchema,
  icons: Icons,
  _meta: Meta,
});
export type Resource = z.infer<typeof ResourceSchema>;

export const ResourceTemplateSchema = z.looseObject({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  annotations: AnnotationsSchema,
  icons: Icons,
  _meta: Meta,
});
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

export const PromptArgumentSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});

export const PromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(PromptArgumentSchema).optional(),
  icons: Icons,
  _meta: Meta,
});
export type Prompt = z.infer<typeof PromptSchema>;

export const TextResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string(),
  _meta: Meta,
});
export const BlobResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
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
export const ResourceLinkSchema = ResourceSchema.extend({ type: z.literal('resource_link') });
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

const knownContent: Record<string, z.ZodType<unknown>> = {
  text: TextContentSchema,
  image: ImageContentSchema,
  audio: AudioContentSchema,
  resource_link: ResourceLinkSchema,
  resource: EmbeddedResourceSchema,
};

/** Known content types are validated strictly; an unknown type passes through as UnknownContent. */
export const ContentBlockSchema = z.looseObject({ type: z.string() }).check((ctx) => {
  const schema = knownContent[ctx.value.type];
  if (!schema) return;
  const result = schema.safeParse(ctx.value);
  if (!result.success) {
    for (const issue of result.error.issues) {
      ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: ctx.value });
    }
  }
}) as unknown as z.ZodType<ContentBlock | UnknownContent>;

export const CallToolResultSchema = z.looseObject({
  content: z.array(ContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: Meta,
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

function paginated<T extends z.ZodType>(key: string, item: T) {
  return z.looseObject({ [key]: z.array(item), nextCursor: z.string().optional(), _meta: Meta });
}

export const ListToolsResultSchema = paginated('tools', ToolSchema) as unknown as z.ZodType<{ tools: Tool[]; nextCursor?: string }>;
export const ListResourcesResultSchema = paginated('resources', ResourceSchema) as unknown as z.ZodType<{ resources: Resource[]; nextCursor?: string }>;
export const ListResourceTemplatesResultSchema = paginated('resourceTemplates', ResourceTemplateSchema) as unknown as z.ZodType<{
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
}>;
export const ListPromptsResultSchema = paginated('prompts', PromptSchema) as unknown as z.ZodType<{ prompts: Prompt[]; nextCursor?: string }>;

export const ReadResourceResultSchema = z.looseObject({ contents: z.array(ResourceContentsSchema), _meta: Meta });
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

export const PromptMessageSchema = z.looseObject({ role: z.enum(['user', 'assistant']), content: ContentBlockSchema });
export const GetPromptResultSchema = z.looseObject({ description: z.string().optional(), messages: z.array(PromptMessageSchema), _meta: Meta });
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

export const CompleteResultSchema = z.looseObject({
  completion: z.looseObject({ values: z.array(z.string()), total: z.number().optional(), hasMore: z.boolean().optional() }),
  _meta: Meta,
});
export type CompleteResult = z.infer<typeof CompleteResultSchema>;

export const EmptyResultSchema = z.looseObject({ _meta: Meta });

export const LoggingLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LoggingLevels)[number];

export const LoggingMessageParamsSchema = z.looseObject({ level: z.enum(LoggingLevels), logger: z.string().optional(), data: z.unknown() });
export type LoggingMessageParams = z.infer<typeof LoggingMessageParamsSchema>;

export const ResourceUpdatedParamsSchema = z.looseObject({ uri: z.string() });

export interface Root {
  uri: string;
  name?: string;
}

export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
