import type { JsonSchema, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import { blockAsText } from '../../wrap/results.js';

/*
 * These shapes are written to be structurally compatible with the official `@anthropic-ai/sdk`
 * types, without depending on it: an `AnthropicTool[]` is assignable to `Anthropic.Tool[]`, an
 * `AnthropicToolResultBlock[]` to a `MessageParam`'s content, and a message's `ContentBlock[]` to
 * `dispatchAll`. `test/readme-types.test.ts` type-checks that against the SDK.
 */

/** A tool's input schema as the Messages API takes it: always a JSON Schema of an object. */
export type AnthropicInputSchema = { readonly type: 'object'; readonly [keyword: string]: unknown };

/** A tool as the Anthropic Messages API takes it (`Anthropic.Tool`). */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: AnthropicInputSchema;
}

/** A tool definition shown only once a tool search returns it (`Anthropic.Tool` with `defer_loading`). */
export interface AnthropicDeferredTool extends AnthropicTool {
  readonly defer_loading: true;
}

/** Anthropic's server-side tool search (beta `advanced-tool-use-2025-11-20`). */
export type AnthropicToolSearchTool =
  | { readonly type: 'tool_search_tool_bm25_20251119'; readonly name: 'tool_search_tool_bm25' }
  | { readonly type: 'tool_search_tool_regex_20251119'; readonly name: 'tool_search_tool_regex' };

/** A `tools` entry when some tools are deferred: loaded, deferred, or the search tool. */
export type AnthropicToolEntry = AnthropicTool | AnthropicDeferredTool | AnthropicToolSearchTool;

/** A descriptor as a deferred tool of the Anthropic Messages API. */
export function toAnthropicDeferredTool(descriptor: ToolDescriptor): AnthropicDeferredTool {
  return { ...toAnthropicTool(descriptor), defer_loading: true };
}

/** A `tool_use` block from an assistant message (`Anthropic.ToolUseBlock`). */
export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** The image types the Messages API takes in a `tool_result`; other images are sent as text naming them. */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/**
 * Content a `tool_result` may carry (`Anthropic.TextBlockParam | Anthropic.ImageBlockParam |
 * Anthropic.ToolReferenceBlockParam`); a `tool_reference` answers a client-side tool search.
 */
export type AnthropicToolResultContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_reference'; readonly tool_name: string }
  | {
      readonly type: 'image';
      readonly source: {
        readonly type: 'base64';
        readonly media_type: AnthropicImageMediaType;
        readonly data: string;
      };
    };

/**
 * The `tool_result` block answering one `tool_use` (`Anthropic.ToolResultBlockParam`). Its
 * `content` is a plain array, so a list of these goes straight into a user `MessageParam`.
 */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: AnthropicToolResultContent[];
  readonly is_error?: true;
}

/**
 * Any block of an assistant message (`Anthropic.ContentBlock`, or your own); only `tool_use`
 * blocks are dispatched. Only `type` is required, so the SDK's block interfaces fit as they are.
 */
export type AnthropicContentBlock = AnthropicToolUseBlock | { readonly type: string };

function objectSchema(schema: JsonSchema): AnthropicInputSchema {
  // Every tool's input is an object (defineTool and MCP require it). A schema that does not say
  // so (`{}`, accepting anything) is narrowed to objects, the only input the API sends.
  return schema.type === 'object' ? (schema as AnthropicInputSchema) : { ...schema, type: 'object' };
}

/** A descriptor as a tool of the Anthropic Messages API. */
export function toAnthropicTool(descriptor: ToolDescriptor): AnthropicTool {
  return {
    name: descriptor.name,
    description: descriptor.description,
    input_schema: objectSchema(descriptor.inputSchema),
  };
}

const IMAGE_TYPES: ReadonlySet<string> = new Set<AnthropicImageMediaType>([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

/**
 * Converts a result to a `tool_result` block. Text and images of the types the API takes map
 * directly; other images, audio and resources become text that names them. Structured output
 * without content is sent as JSON text.
 */
export function toAnthropicToolResult(toolUseId: string, result: ToolResult): AnthropicToolResultBlock {
  const content: AnthropicToolResultContent[] = result.content.map((block) =>
    block.type === 'image' && IMAGE_TYPES.has(block.mimeType)
      ? {
          type: 'image',
          source: { type: 'base64', media_type: block.mimeType as AnthropicImageMediaType, data: block.data },
        }
      : { type: 'text', text: blockAsText(block) },
  );
  if (content.length === 0 && result.structuredContent !== undefined) {
    content.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  }
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content,
    ...(result.isError === true ? { is_error: true as const } : {}),
  };
}
