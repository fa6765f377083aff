import type { ContentBlock, ToolResult } from '@toolhost/plugin-sdk';

/** An `is_error` result with one text block: how every failure reaches the model. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function blockSize(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return block.text.length;
    case 'image':
    case 'audio':
      return block.data.length;
    case 'resource':
      return 'text' in block.resource ? block.resource.text.length : block.resource.blob.length;
    case 'resource_link':
      return block.uri.length + block.name.length;
  }
}

/** The characters a result carries in text and data, without serializing it. */
export function resultSize(result: ToolResult): number {
  let size = 0;
  for (const block of result.content) size += blockSize(block);
  return size;
}

/** A readable rendering of one block, for targets that only take text. */
export function blockAsText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${block.data.length} base64 characters]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${block.data.length} base64 characters]`;
    case 'resource':
      return 'text' in block.resource
        ? `[resource ${block.resource.uri}]\n${block.resource.text}`
        : `[resource ${block.resource.uri}${block.resource.mimeType ? ` ${block.resource.mimeType}` : ''}, binary]`;
    case 'resource_link':
      return `[resource link ${block.name}: ${block.uri}]`;
  }
}

/** All of a result as one string (text blocks joined by newlines). */
export function resultText(result: ToolResult): string {
  return result.content.map(blockAsText).join('\n');
}
