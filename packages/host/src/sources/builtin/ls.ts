import { promises as fs } from 'node:fs';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { byCodeUnit } from '../../util/compare.js';
import { errorCode } from '../../util/errors.js';
import { confine, describeFsError } from '../../workspace/confine.js';
import type { WorkspaceSettings } from './settings.js';

/** Listing more entries than this helps no model; the note says how many were left off. */
const MAX_ENTRIES = 1000;

const input = z.object({
  path: z
    .string()
    .optional()
    .describe('Directory, relative to the workspace root (or absolute inside it); default the root'),
});

/** The `ls` tool: the entries of one workspace directory, sorted. */
export function lsTool(settings: WorkspaceSettings) {
  return defineTool({
    name: 'ls',
    title: 'List directory',
    description:
      'List a workspace directory (default: the root). Entries are sorted; directories end with "/", ' +
      'symbolic links with "@" (they are not followed).',
    input,
    annotations: { readOnlyHint: true },
    async execute({ path = '.' }, ctx) {
      ctx.signal.throwIfAborted();
      const { real } = await confine(settings.root, path);
      const entries = await fs.readdir(real, { withFileTypes: true }).catch((error: unknown) => {
        if (errorCode(error) === 'ENOTDIR') {
          throw new Error(`path ${JSON.stringify(path)} is a file, not a directory; use read to read it`);
        }
        throw describeFsError(error, path);
      });
      if (entries.length === 0) return `(${path} is an empty directory)`;
      // Link entries are never stat-ed: following one could reveal what lies outside the root.
      const names = entries
        .sort((a, b) => byCodeUnit(a.name, b.name))
        .map((entry) =>
          entry.isSymbolicLink() ? `${entry.name}@` : entry.isDirectory() ? `${entry.name}/` : entry.name,
        );
      if (names.length <= MAX_ENTRIES) return names.join('\n');
      const shown = names.slice(0, MAX_ENTRIES).join('\n');
      return `${shown}\n[${names.length - MAX_ENTRIES} more entries not shown]`;
    },
  });
}
