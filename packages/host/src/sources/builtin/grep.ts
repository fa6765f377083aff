import { type Dirent, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { byCodeUnit } from '../../util/compare.js';
import { confine, describeFsError, displayPath } from '../../workspace/confine.js';
import { openForRead } from '../../workspace/files.js';
import { compilePathGlob } from './glob.js';
import type { SearchFile, SearchOutcome } from './grep-protocol.js';
import { searchFiles } from './grep-search.js';
import type { GrepLimits, WorkspaceSettings } from './settings.js';
import { abortSignalOf } from './signal.js';

/** Directories no one means to search: dependencies and version-control internals. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const DEFAULT_MAX_RESULTS = 100;
/** Matching a glob takes time proportional to its length times the path's: keep both bounded. */
const MAX_GLOB_CHARS = 500;
/** Files named in a note before the rest are only counted. */
const MAX_NAMED_FILES = 5;

const input = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression, matched against each line'),
  path: z
    .string()
    .optional()
    .describe('File or directory to search, relative to the workspace root; default the root'),
  glob: z
    .string()
    .max(MAX_GLOB_CHARS)
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
  /** Control files closed for reading (the config file, by default). */
  control: number;
  binary: number;
  large: number;
  unreadable: number;
}

/**
 * The `grep` tool: a regular-expression search over the text files of the workspace. Files are read
 * here; the pattern runs in a worker thread (grep-search.ts), under a time budget per file and per search.
 */
export function grepTool(settings: WorkspaceSettings, limits: GrepLimits) {
  const { searchBudgetMs, fileBudgetMs } = limits;
  return defineTool({
    name: 'grep',
    title: 'Search files',
    description:
      'Search workspace files for lines matching a JavaScript regular expression, recursively. Prints ' +
      '"path:line:text". Skips node_modules, .git, binary files, symbolic links and files over ' +
      `${settings.maxReadBytes} bytes. Stops after maxResults matches or ${searchBudgetMs / 1000} s, ` +
      `saying so. If the pattern backtracks for over ${fileBudgetMs} ms on one file, the rest is ` +
      'matched by a linear-time engine (RE2), which has no backreferences (\\1, \\k<name>) and no ' +
      'lookahead or lookbehind; a file that still takes too long is skipped and named.',
    input,
    annotations: { readOnlyHint: true },
    async execute(
      { pattern, path: userPath = '.', glob, ignoreCase, maxResults = DEFAULT_MAX_RESULTS },
      ctx,
    ) {
      const signal = abortSignalOf(ctx.signal);
      signal.throwIfAborted();
      const globFilter = glob === undefined ? undefined : compilePathGlob(glob);
      const { rootReal, real } = await confine(settings.root, userPath);
      const stat = await fs.stat(real).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      const skipped: Skipped = { control: 0, binary: 0, large: 0, unreadable: 0 };
      // As `read` refuses the config file (it may hold secrets), grep does not search it.
      const closed = await settings.control.unreadableTest();
      async function* searchable(): AsyncGenerator<SearchFile> {
        for await (const file of stat.isDirectory() ? walk(real) : single(real)) {
          const rel = displayPath(rootReal, file);
          if (globFilter !== undefined && !globFilter.matches(rel)) continue;
          const data = await readSearchable(rootReal, file, rel, settings.maxReadBytes, skipped, closed);
          if (data !== undefined) yield { rel, data };
        }
      }
      const outcome = await searchFiles(searchable(), {
        pattern,
        ignoreCase: ignoreCase === true,
        maxResults,
        budgetMs: searchBudgetMs,
        fileBudgetMs,
        maxFileBytes: settings.maxReadBytes,
        signal,
      });
      return render(outcome, { pattern, userPath, maxResults, skipped, limits });
    },
  });
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

/** The file's bytes, or undefined (counted in `skipped`) when it is binary, too large or unreadable. */
async function readSearchable(
  rootReal: string,
  file: string,
  rel: string,
  maxBytes: number,
  skipped: Skipped,
  closed: (real: string, id: { dev: number; ino: number }) => boolean,
): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof openForRead>>;
  try {
    handle = await openForRead(rootReal, file, rel);
  } catch {
    skipped.unreadable++;
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (closed(file, stat)) {
      skipped.control++;
      return undefined;
    }
    const { size } = stat;
    if (size > maxBytes) {
      skipped.large++;
      return undefined;
    }
    const buffer = await handle.readFile();
    if (buffer.includes(0)) {
      skipped.binary++;
      return undefined;
    }
    return buffer;
  } catch {
    skipped.unreadable++;
    return undefined;
  } finally {
    await handle.close();
  }
}

function render(
  outcome: SearchOutcome,
  info: { pattern: string; userPath: string; maxResults: number; skipped: Skipped; limits: GrepLimits },
): string {
  const { fileBudgetMs, searchBudgetMs } = info.limits;
  const notes: string[] = [];
  if (outcome.capped) {
    notes.push(
      `[stopped after ${info.maxResults} matches; narrow the pattern, path or glob to see the rest]`,
    );
  }
  if (outcome.outOfTime) {
    notes.push(
      `[stopped after the ${searchBudgetMs} ms time budget, with ${outcome.searchedFiles} files searched; ` +
        'narrow the path or glob to search the rest]',
    );
  }
  if (outcome.linearFrom !== undefined) {
    notes.push(
      `[the pattern backtracked for over ${fileBudgetMs} ms on ${outcome.linearFrom}; from there on it ` +
        'was matched by the linear-time engine]',
    );
  }
  if (outcome.tooSlow.length > 0) {
    const why =
      outcome.linearRefused === undefined
        ? ''
        : ` (the linear-time engine cannot run it: ${outcome.linearRefused})`;
    notes.push(
      `[not searched: ${namesOf(outcome.tooSlow)}, where matching took over ${fileBudgetMs} ms${why}]`,
    );
  }
  const { control, binary, large, unreadable } = info.skipped;
  const parts = [
    control > 0
      ? `${control} host control file (builtins.controlFiles.config opens the config; nothing opens the serve tokens)`
      : '',
    binary > 0 ? `${binary} binary` : '',
    large > 0 ? `${large} too large` : '',
    unreadable > 0 ? `${unreadable} unreadable` : '',
  ].filter((part) => part !== '');
  if (parts.length > 0) notes.push(`[skipped files: ${parts.join(', ')}]`);
  const body =
    outcome.hits.length === 0
      ? `No matches for ${JSON.stringify(info.pattern)} in ${info.userPath}`
      : outcome.hits.map((hit) => `${hit.rel}:${hit.line}:${hit.text}`).join('\n');
  return [body, ...notes].join('\n');
}

function namesOf(files: readonly string[]): string {
  const named = files.slice(0, MAX_NAMED_FILES).join(', ');
  const rest = files.length - MAX_NAMED_FILES;
  return rest > 0 ? `${named} and ${rest} more files` : named;
}
