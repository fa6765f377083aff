import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { readTextFile } from '../../workspace/files.js';
import type { WorkspaceSettings } from './settings.js';
import { abortSignalOf } from './signal.js';

const input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it)'),
  offset: z.number().int().min(1).optional().describe('First line to return, counting from 1'),
  limit: z.number().int().min(1).optional().describe('Largest number of lines to return'),
});

/** The `read` tool: a UTF-8 text file of the workspace, whole or a range of its lines. */
export function readTool(settings: WorkspaceSettings) {
  return defineTool({
    name: 'read',
    title: 'Read file',
    description:
      'Read a UTF-8 text file in the workspace. Use offset/limit (line numbers, from 1) to read part of a ' +
      `large file. Binary files and files over ${settings.maxReadBytes} bytes are refused.`,
    input,
    annotations: { readOnlyHint: true },
    async execute({ path, offset, limit }, ctx) {
      ctx.signal.throwIfAborted();
      const { rootReal, real } = await settings.control.confine(settings.root, path, 'read');
      const text = await readTextFile(rootReal, real, path, {
        maxBytes: settings.maxReadBytes,
        signal: abortSignalOf(ctx.signal),
      });
      if (offset === undefined && limit === undefined) return text;
      return sliceLines(text, offset ?? 1, limit);
    },
  });
}

/** Lines `offset`…`offset + limit - 1` of `text`, with a note saying where the rest is. */
function sliceLines(text: string, offset: number, limit: number | undefined): string {
  const lines = text.split('\n');
  // A trailing newline ends the last line; it does not start another one.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (offset > lines.length) {
    throw new Error(`offset ${offset} is past the end of the file, which has ${lines.length} lines`);
  }
  const end = limit === undefined ? lines.length : Math.min(lines.length, offset - 1 + limit);
  const body = lines.slice(offset - 1, end).join('\n');
  if (offset === 1 && end === lines.length) return body;
  const more = end < lines.length ? `; pass offset=${end + 1} to read on` : '';
  return `${body}\n[lines ${offset}-${end} of ${lines.length}${more}]`;
}
