import type { Stats } from 'node:fs';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/** `fs.stat` of `file` (links followed), or undefined when it cannot be had: missing, no access, … */
async function statOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch {
    return undefined;
  }
}

/** Whether something is at `file` that `stat` can reach. */
export async function exists(file: string): Promise<boolean> {
  return (await statOrUndefined(file)) !== undefined;
}

/** Whether `file` is a regular file (links followed); any error counts as no. */
export async function isFile(file: string): Promise<boolean> {
  return (await statOrUndefined(file))?.isFile() === true;
}

/** Whether `dir` is a directory (links followed); any error counts as no. */
export async function isDirectory(dir: string): Promise<boolean> {
  return (await statOrUndefined(dir))?.isDirectory() === true;
}

/**
 * `isFile`, synchronously: for code that cannot wait (module set-up), and for the many small
 * checks of a pass over the plugins, where the thread pool's round trip costs more than the stat.
 */
export function isFileSync(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `isDirectory`, synchronously (see `isFileSync`). */
export function isDirectorySync(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
