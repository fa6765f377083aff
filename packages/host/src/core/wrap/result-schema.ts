import * as z from 'zod';

/**
 * The shape of a `ToolResult`, for results that come from untrusted code (a plugin's isolate, an
 * MCP server): checked with it before the host reads a field.
 */

const text = z.string();

export const contentBlockSchema = z.union([
  z.object({ type: z.literal('text'), text }),
  z.object({ type: z.literal('image'), data: text, mimeType: text }),
  z.object({ type: z.literal('audio'), data: text, mimeType: text }),
  z.object({
    type: z.literal('resource'),
    resource: z.union([
      z.object({ uri: text, mimeType: text.optional(), text }),
      z.object({ uri: text, mimeType: text.optional(), blob: text }),
    ]),
  }),
  z.object({
    type: z.literal('resource_link'),
    uri: text,
    name: text,
    title: text.optional(),
    description: text.optional(),
    mimeType: text.optional(),
    size: z.number().optional(),
  }),
]);

export const structured = z.record(z.string(), z.unknown());

export const toolResultSchema = z.object({
  content: z.array(contentBlockSchema),
  isError: z.boolean().optional(),
  structuredContent: structured.optional(),
});
