/**
 * grep as it was before its matching moved off the main thread: RegExp line by line, in-process,
 * with the glob translated to a RegExp. Kept as the oracle the current implementation must agree
 * with on ordinary inputs. Synchronous and without the file-opening safeguards: test fixtures only.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

export interface ReferenceInput {
  readonly pattern: string;
  readonly path?: string;
  readonly glob?: string;
  readonly ignoreCase?: boolean;
  readonly maxResults?: number;
}

const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const MAX_LINE_CHARS = 400;

/** The old tool's output for `input` over the workspace at `root`. */
export function referenceGrep(root: string, input: ReferenceInput, maxReadBytes = 1024 * 1024): string {
  const { pattern, path: userPath = '.', glob, ignoreCase = false, maxResults = 100 } = input;
  const regex = new RegExp(pattern, ignoreCase ? 'i' : '');
  const globRegex = glob === undefined ? undefined : referenceGlobToRegExp(glob);
  const start = path.join(root, userPath);
  const files = statSync(start).isDirectory() ? walk(start) : [start];
  const matches: string[] = [];
  let binary = 0;
  let large = 0;
  let capped = false;
  search: for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    if (globRegex !== undefined && !referenceMatchesGlob(globRegex, glob?.includes('/') === true, rel))
      continue;
    const buffer = readFileSync(file);
    if (buffer.length > maxReadBytes) {
      large++;
      continue;
    }
    if (buffer.includes(0)) {
      binary++;
      continue;
    }
    const lines = buffer.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] ?? '').replace(/\r$/, '');
      if (!regex.test(line)) continue;
      if (matches.length === maxResults) {
        capped = true;
        break search;
      }
      matches.push(
        `${rel}:${i + 1}:${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`,
      );
    }
  }
  const notes: string[] = [];
  if (capped) {
    notes.push(`[stopped after ${maxResults} matches; narrow the pattern, path or glob to see the rest]`);
  }
  const parts = [binary > 0 ? `${binary} binary` : '', large > 0 ? `${large} too large` : ''].filter(
    (part) => part !== '',
  );
  if (parts.length > 0) notes.push(`[skipped files: ${parts.join(', ')}]`);
  const body =
    matches.length === 0 ? `No matches for ${JSON.stringify(pattern)} in ${userPath}` : matches.join('\n');
  return [body, ...notes].join('\n');
}

function walk(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isSymbolicLink()) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...walk(full));
    } else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** The old glob matcher: the glob translated to a RegExp. */
export function referenceGlobToRegExp(glob: string): RegExp {
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob.charAt(i);
    if (char === '*' && glob.charAt(i + 1) === '*') {
      if (glob.charAt(i + 2) === '/') {
        source += '(?:.*/)?';
        i += 2;
      } else {
        source += '.*';
        i += 1;
      }
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') {
      source += '(?:';
      braces++;
    } else if (char === '}' && braces > 0) {
      source += ')';
      braces--;
    } else if (char === ',' && braces > 0) source += '|';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  if (braces > 0) throw new Error(`glob ${JSON.stringify(glob)} has an unclosed "{"`);
  return new RegExp(`^${source}$`);
}

export function referenceMatchesGlob(glob: RegExp, globHasSlash: boolean, relPath: string): boolean {
  const subject = globHasSlash ? relPath : relPath.slice(relPath.lastIndexOf('/') + 1);
  return glob.test(subject);
}
