import type { ContentBlock, ToolResult } from './types.js';

const contentBlockTypes = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

function checkContentBlock(block: unknown, index: number): ContentBlock {
  if (typeof block !== 'object' || block === null) {
    throw new TypeError(`content[${index}] is not an object`);
  }
  const type = (block as { type?: unknown }).type;
  if (typeof type !== 'string' || !contentBlockTypes.has(type)) {
    throw new TypeError(
      `content[${index}] has unsupported type ${JSON.stringify(type)} (expected text, image, audio, resource or resource_link)`,
    );
  }
  if (type === 'text' && typeof (block as { text?: unknown }).text !== 'string') {
    throw new TypeError(`content[${index}] is a text block without a string "text"`);
  }
  return block as ContentBlock;
}

/**
 * Turns whatever `execute` returned into a {@link ToolResult}. Throws a `TypeError` that says what
 * is wrong when the value is not a supported shape.
 */
export function normalizeToolReturn(value: unknown): ToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (Array.isArray(value)) return { content: value.map(checkContentBlock) };
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      `execute returned ${value === null ? 'null' : typeof value}; return a string, content blocks or { content, structuredContent }`,
    );
  }
  const { content, structuredContent, isError } = value as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
  };
  if (content !== undefined && !Array.isArray(content))
    throw new TypeError('result.content must be an array');
  if (
    structuredContent !== undefined &&
    (typeof structuredContent !== 'object' || structuredContent === null || Array.isArray(structuredContent))
  ) {
    throw new TypeError('result.structuredContent must be an object');
  }
  if (isError !== undefined && typeof isError !== 'boolean')
    throw new TypeError('result.isError must be a boolean');
  if (content === undefined && structuredContent === undefined) {
    const keys = Object.keys(value).slice(0, 3).join(', ');
    throw new TypeError(
      `execute returned a plain object${keys === '' ? '' : ` ({ ${keys}${Object.keys(value).length > 3 ? ', …' : ''} })`} with neither content nor structuredContent; ` +
        'return JSON.stringify(value) for the model to read it as text, or { structuredContent: value } for structured output (declare `output` on the tool to check it)',
    );
  }
  const blocks =
    content === undefined
      ? [{ type: 'text' as const, text: JSON.stringify(structuredContent) }]
      : content.map(checkContentBlock);
  return {
    content: blocks,
    ...(isError === true ? { isError: true } : {}),
    ...(structuredContent === undefined
      ? {}
      : { structuredContent: structuredContent as Record<string, unknown> }),
  };
}
