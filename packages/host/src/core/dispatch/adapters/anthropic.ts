import type { JsonSchema, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import { blockAsText } from '../../wrap/results.js';

/** A tool as the Anthropic Messages API takes it. */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

/** A `tool_use` block from an assistant message. */
export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** Content a `tool_result` may carry. */
export type AnthropicToolResultContent =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image';
      readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string };
    };

/** The `tool_result` block answering one `tool_use`. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: readonly AnthropicToolResultContent[];
  readonly is_error?: true;
}

/** Any block of an assistant message; only `tool_use` blocks are dispatched. */
export type AnthropicContentBlock =
  | AnthropicToolUseBlock
  | { readonly type: string; readonly [key: string]: unknown };

/** A descriptor as a tool of the Anthropic Messages API. */
export function toAnthropicTool(descriptor: ToolDescriptor): AnthropicTool {
  return { name: descriptor.name, description: descriptor.description, input_schema: descriptor.inputSchema };
}

/**
 * Converts a result to a `tool_result` block. Text and images map directly; audio and resources
 * become text that names them. Structured output without text is sent as JSON text.
 */
export function toAnthropicToolResult(toolUseId: string, result: ToolResult): AnthropicToolResultBlock {
  const content: AnthropicToolResultContent[] = result.content.map((block) =>
    block.type === 'image'
      ? { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } }
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
