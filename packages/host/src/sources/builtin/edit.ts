import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { readTextFile, writeTextFile } from '../../workspace/files.js';
import { withFileLock } from '../../workspace/path-lock.js';
import type { WorkspaceSettings } from './settings.js';
import { abortSignalOf } from './signal.js';

const input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it)'),
  oldText: z.string().min(1).describe('Exact text to replace; it must occur exactly once in the file'),
  newText: z.string().describe('Text to put in its place'),
});

/** The `edit` tool: replaces one exact, unique occurrence of a text in a file. */
export function editTool(settings: WorkspaceSettings) {
  return defineTool({
    name: 'edit',
    title: 'Edit file',
    description:
      'Replace an exact piece of text in a workspace file. oldText must match the file exactly ' +
      '(whitespace and line breaks included) and occur exactly once; include surrounding lines to make it unique.',
    input,
    annotations: { destructiveHint: true },
    async execute({ path, oldText, newText }, ctx) {
      ctx.signal.throwIfAborted();
      const { rootReal, real } = await settings.control.confine(settings.root, path, 'write');
      // Read, replace and write under the file's lock: a concurrent edit of the same file waits and
      // then works on this one's result, so neither is lost.
      await withFileLock(real, async () => {
        ctx.signal.throwIfAborted();
        const text = await readTextFile(rootReal, real, path, {
          maxBytes: settings.maxReadBytes,
          signal: abortSignalOf(ctx.signal),
        });
        const at = text.indexOf(oldText);
        if (at === -1) {
          throw new Error(`oldText was not found in ${path}; read the file and copy the text exactly`);
        }
        const count = countOccurrences(text, oldText);
        if (count > 1) {
          throw new Error(
            `oldText occurs ${count} times in ${path}; add surrounding context to oldText so it matches exactly once`,
          );
        }
        ctx.signal.throwIfAborted();
        const updated = text.slice(0, at) + newText + text.slice(at + oldText.length);
        await writeTextFile(rootReal, real, path, updated);
      });
      return `Edited ${path}: replaced 1 occurrence`;
    },
  });
}

/** Counts occurrences, overlapping ones included: any second match position makes the edit ambiguous. */
function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}
