/**
 * Absolute host paths out of text a model will read. Node's error messages carry the absolute
 * path they failed on (`EMFILE: too many open files, open '/home/ann/project/notes.txt'`), and an
 * error that reaches a tool result unreworded would tell the model where the host lives.
 *
 * A path is taken for a host path when it starts at a folder of the file system's root (listed
 * once; a few usual ones are always counted, for a process that sees a narrowed root), so a URL
 * path (`GET /api/users`) or a relative path (`data/tmp/x`) is left alone; `file:` URLs and
 * Windows drive paths always count.
 */

import { readdirSync } from 'node:fs';

/** What a host path becomes. */
export const HOST_PATH = '<host path>';

const USUAL_ROOTS = [
  'Users',
  'Volumes',
  'etc',
  'home',
  'mnt',
  'opt',
  'private',
  'root',
  'srv',
  'tmp',
  'usr',
  'var',
];
/** Ends a path inside a message: white space, quotes, brackets and the separators messages use. */
const PATH_CHARS = String.raw`[^\s'"\x60<>,;:()\[\]{}]`;

let pattern: RegExp | undefined;

function hostPathPattern(): RegExp {
  if (pattern !== undefined) return pattern;
  let roots: string[] = [];
  try {
    roots = readdirSync('/');
  } catch {
    // No listing (another OS, a jail): the usual folders still count.
  }
  const names = [...new Set([...roots, ...USUAL_ROOTS])]
    .filter((name) => /^[\w.@+-]+$/.test(name))
    .map((name) => name.replace(/[.+]/g, '\\$&'));
  pattern = new RegExp(
    [
      String.raw`file:\/\/${PATH_CHARS}*`,
      // Not inside a URL or a relative path: nothing path-like right before the slash.
      String.raw`(?<![\w.~/@-])\/(?:${names.join('|')})(?![\w.@+-])${PATH_CHARS}*`,
      String.raw`\b[A-Za-z]:\\${PATH_CHARS}*`,
    ].join('|'),
    'g',
  );
  return pattern;
}

/**
 * `text` with every absolute host path replaced by {@link HOST_PATH}, except those found in
 * `known()` (what the model itself wrote, such as the call's input: telling it back leaks
 * nothing); `known` is asked only when a path was found.
 */
export function withoutHostPaths(text: string, known?: () => string): string {
  let wrote: string | undefined;
  return text.replace(hostPathPattern(), (found) => {
    wrote ??= known?.() ?? '';
    return wrote.includes(found) ? found : HOST_PATH;
  });
}
