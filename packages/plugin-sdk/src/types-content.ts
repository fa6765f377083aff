/**
 * Plain data of the contracts that the rest is made of: JSON Schemas and a tool's result, MCP content
 * blocks (types.ts exports these as part of the contracts).
 */

/** A JSON Schema (2020-12) object, as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Optional MCP annotations on a content block. */
export interface ContentAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[];
  readonly priority?: number;
  readonly lastModified?: string;
}

/** Plain text. */
export interface TextContent {
  readonly type: 'text';
  readonly text: string;
  readonly annotations?: ContentAnnotations;
}

/** An image, base64-encoded. */
export interface ImageContent {
  readonly type: 'image';
  /** Base64 data. */
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: ContentAnnotations;
}

/** Audio, base64-encoded. */
export interface AudioContent {
  readonly type: 'audio';
  /** Base64 data. */
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: ContentAnnotations;
}

/** The contents of a resource embedded in a result: text or base64 blob. */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** A resource embedded in the result. */
export interface EmbeddedResource {
  readonly type: 'resource';
  readonly resource: ResourceContents;
  readonly annotations?: ContentAnnotations;
}

/** A link to a resource the client may fetch. */
export interface ResourceLink {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly annotations?: ContentAnnotations;
}

/** MCP content blocks: convertible to Anthropic `tool_result` and OpenAI tool messages. */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** What a tool call produces. */
export interface ToolResult {
  /** What the model reads. */
  readonly content: readonly ContentBlock[];
  /** The call failed; `content` says why. */
  readonly isError?: boolean;
  /** Structured output matching the tool's `outputSchema`. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  /** MCP's `_meta` of the result, as a bridged server sent it; served again as the result's `_meta`. */
  readonly meta?: Readonly<Record<string, unknown>>;
}
