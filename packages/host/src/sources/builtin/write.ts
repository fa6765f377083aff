import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { writeTextFile } from '../../workspace/files.js';
import { withFileLock } from '../../workspace/path-lock.js';
import type { WorkspaceSettings } from './settings.js';

const input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it)'),
  content: z.string().describe('The whole new content of the file, as UTF-8 text'),
});

/** The `write` tool: creates or replaces a text file, creating missing parent directories. */
export function writeTool(settings: WorkspaceSettings) {
  return defineTool({
    name: 'write',
    title: 'Write file',
    description:
      'Create a text file in the workspace, or replace the whole content of an existing one. Missing ' +
      "parent directories are created. To change part of a file, prefer edit. The host's control files " +
      '(its config file, plugins folder and .toolhost/) cannot be written unless the operator allows it.',
    input,
    annotations: { destructiveHint: true },
    async execute({ path, content }, ctx) {
      ctx.signal.throwIfAborted();
      const { rootReal, real } = await settings.control.confine(settings.root, path, 'write');
      return withFileLock(real, async () => {
        ctx.signal.throwIfAborted();
        const { created, bytes } = await writeTextFile(rootReal, real, path, content);
        return `${created ? 'Created' : 'Overwrote'} ${path} (${bytes} bytes)`;
      });
    },
  });
}
