import { type Dirent, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { openForRead } from './files.js';
import { globToRegExp, matchesGlob } from './glob.js';
import { byCodeUnit } from './ls.js';
import type { WorkspaceSettings } from './types.js';
import { confine, describeFsError, displayPath } from './workspace.js';

/** Directories no one means to search: dependencies and version-control internals. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
/** Longer matching lines are cut, so one minified file cannot flood the result. */
const MAX_LINE_CHARS = 400;
const DEFAULT_MAX_RESULTS = 100;

const input = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression, matched against each line'),
  path: z
    .string()
    .optional()
    .describe('File or directory to search, relative to the workspace root; default the root'),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob (*, **, ?, {a,b}); without "/" it matches the file name'),
  ignoreCase: z.boolean().optional().describe('Match without regard to case'),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe(`Most matches to return; default ${DEFAULT_MAX_RESULTS}`),
});

/** What a search left out, for the footer. */
interface Skipped {
  binary: number;
  large: number;
  unreadable: number;
}

/** The `grep` tool: a regular-expression search over the text files of the workspace. */
export function grepTool(settings: WorkspaceSettings) {
  return defineTool({
    name: 'grep',
    title: 'Search files',
    description:
      'Search workspace files for lines matching a JavaScript regular expression, recursively. Prints ' +
      '"path:line:text". Skips node_modules, .git, binary files, symbolic links and files over ' +
      `${settings.maxReadBytes} bytes.`,
    input,
    annotations: { readOnlyHint: true },
    async execute(
      { pattern, path: userPath = '.', glob, ignoreCase, maxResults = DEFAULT_MAX_RESULTS },
      ctx,
    ) {
      ctx.signal.throwIfAborted();
      const regex = compilePattern(pattern, ignoreCase === true);
      const globRegex = glob === undefined ? undefined : globToRegExp(glob);
      const globHasSlash = glob?.includes('/') === true;
      const { rootReal, real } = await confine(settings.root, userPath);
      const stat = await fs.stat(real).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      const files = stat.isDirectory() ? walk(real) : single(real);
      const matches: string[] = [];
      const skipped: Skipped = { binary: 0, large: 0, unreadable: 0 };
      let capped = false;
      search: for await (const file of files) {
        ctx.signal.throwIfAborted();
        const rel = displayPath(rootReal, file);
        if (globRegex !== undefined && !matchesGlob(globRegex, globHasSlash, rel)) continue;
        const text = await readSearchable(rootReal, file, rel, settings.maxReadBytes, skipped);
        if (text === undefined) continue;
        const lines = text.split('\n');
        for (let i = 0; i < lines.length; i++) {
          const line = (lines[i] ?? '').replace(/\r$/, '');
          // A pathological pattern can still backtrack for long on one line: JS regexes cannot be interrupted.
          if (!regex.test(line)) continue;
          if (matches.length === maxResults) {
            capped = true;
            break search;
          }
          matches.push(`${rel}:${i + 1}:${truncate(line)}`);
        }
      }
      return render(matches, { pattern, userPath, capped, maxResults, skipped });
    },
  });
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is not a valid JavaScript regular expression: ${(error as Error).message}`,
    );
  }
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

/**
 * Files under `dir`, depth first in name order. Symbolic links are skipped, never followed: the
 * walk starts at a confined real path, so without links it cannot leave the root.
 */
async function* walk(dir: string): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => byCodeUnit(a.name, b.name));
  for (const entry of entries) {
    if (entry.isSymbolicLink()) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(full);
    } else if (entry.isFile()) {
      yield full;
    }
  }
}

/** The file's text, or undefined (counted in `skipped`) when it is binary, too large or unreadable. */
async function readSearchable(
  rootReal: string,
  file: string,
  rel: string,
  maxBytes: number,
  skipped: Skipped,
): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof openForRead>>;
  try {
    handle = await openForRead(rootReal, file, rel);
  } catch {
    skipped.unreadable++;
    return undefined;
  }
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) {
      skipped.large++;
      return undefined;
    }
    const buffer = await handle.readFile();
    if (buffer.includes(0)) {
      skipped.binary++;
      return undefined;
    }
    return buffer.toString('utf8');
  } catch {
    skipped.unreadable++;
    return undefined;
  } finally {
    await handle.close();
  }
}

function truncate(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}

function render(
  matches: readonly string[],
  info: { pattern: string; userPath: string; capped: boolean; maxResults: number; skipped: Skipped },
): string {
  const notes: string[] = [];
  if (info.capped) {
    notes.push(
      `[stopped after ${info.maxResults} matches; narrow the pattern, path or glob to see the rest]`,
    );
  }
  const { binary, large, unreadable } = info.skipped;
  const parts = [
    binary > 0 ? `${binary} binary` : '',
    large > 0 ? `${large} too large` : '',
    unreadable > 0 ? `${unreadable} unreadable` : '',
  ].filter((part) => part !== '');
  if (parts.length > 0) notes.push(`[skipped files: ${parts.join(', ')}]`);
  const body =
    matches.length === 0
      ? `No matches for ${JSON.stringify(info.pattern)} in ${info.userPath}`
      : matches.join('\n');
  return [body, ...notes].join('\n');
}
