import type { ToolResult } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { toAnthropicTool, toAnthropicToolResult } from '../../../src/core/dispatch/adapters/anthropic.js';
import {
  toOpenAIFunctionCallOutput,
  toOpenAIToolMessage,
} from '../../../src/core/dispatch/adapters/openai.js';

const everything: ToolResult = {
  content: [
    { type: 'text', text: 'hello' },
    { type: 'image', data: 'iVBOR', mimeType: 'image/png' },
    { type: 'audio', data: 'UklGR', mimeType: 'audio/wav' },
    { type: 'resource', resource: { uri: 'file:///notes.md', text: '# Notes' } },
    { type: 'resource_link', uri: 'file:///big.bin', name: 'big.bin' },
  ],
};

describe('Anthropic tool_result', () => {
  it('maps text and images directly and names audio and resources in text', () => {
    const block = toAnthropicToolResult('tu', everything);
    expect(block).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu',
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
        { type: 'text', text: '[audio audio/wav, 5 base64 characters]' },
        { type: 'text', text: '[resource file:///notes.md]\n# Notes' },
        { type: 'text', text: '[resource link big.bin: file:///big.bin]' },
      ],
    });
  });

  it('sends images of a type the API does not take (svg, bmp) as text naming them', () => {
    const block = toAnthropicToolResult('tu', {
      content: [{ type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' }],
    });
    expect(block.content).toEqual([{ type: 'text', text: '[image image/svg+xml, 8 base64 characters]' }]);
  });

  it('sets is_error only on errors, and sends structured-only output as JSON text', () => {
    expect(toAnthropicToolResult('a', { content: [], isError: true }).is_error).toBe(true);
    expect(toAnthropicToolResult('a', { content: [] })).not.toHaveProperty('is_error');
    expect(toAnthropicToolResult('a', { content: [], structuredContent: { n: 1 } }).content).toEqual([
      { type: 'text', text: '{"n":1}' },
    ]);
  });
});

describe('Anthropic tool', () => {
  it('always has an object input_schema, as the Messages API requires', () => {
    const descriptor = {
      name: 't',
      description: 'd',
      owner: { kind: 'custom' },
      inputSchema: { properties: { a: { type: 'string' } } },
    } as const;
    expect(toAnthropicTool(descriptor).input_schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    const object = { type: 'object', properties: {} } as const;
    expect(toAnthropicTool({ ...descriptor, inputSchema: object }).input_schema).toBe(object);
  });
});

describe('OpenAI Responses function_call_output', () => {
  it('carries the text, errors marked in it', () => {
    expect(
      toOpenAIFunctionCallOutput('call_1', { content: [{ type: 'text', text: 'boom' }], isError: true }),
    ).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: 'Error: boom',
    });
  });
});

describe('OpenAI tool message', () => {
  it('joins the content as text and marks errors in the text', () => {
    expect(
      toOpenAIToolMessage('c', {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({
      role: 'tool',
      tool_call_id: 'c',
      content: 'a\nb',
    });
    expect(
      toOpenAIToolMessage('c', { content: [{ type: 'text', text: 'boom' }], isError: true }).content,
    ).toBe('Error: boom');
  });
});
