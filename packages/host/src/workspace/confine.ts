/**
 * Path confinement for the built-in tools: every path a model hands in is resolved to a real,
 * absolute path inside the workspace root, or refused.
 *
 * Resolution works on real paths (`fs.realpath`), so a symbolic link anywhere along the path — the
 * root itself, an intermediate directory, the final component, or a dangling link — is judged by
 * where it really leads. The tools then open the *resolved* path, never the one the model wrote.
 * What resolution cannot close by itself (a path swapped for a symlink after it was checked) is
 * handled when the file is opened: see `files.ts`.
 */

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { getSystemErrorMessage } from 'node:util';
import { errorCode } from '../util/errors.js';
import { isInside } from '../util/paths.js';

/** A path that leads outside the workspace root. The message is safe to show to a model. */
export class WorkspaceEscapeError extends Error {
  override readonly name = 'WorkspaceEscapeError';
  readonly code = 'workspace-escape';
  /** The path as the caller wrote it. */
  readonly userPath: string;

  constructor(userPath: string, detail?: string) {
    super(`path ${JSON.stringify(userPath)} is outside the workspace root${detail ? ` (${detail})` : ''}`);
    this.userPath = userPath;
  }
}

/** Checks the `code`, not the class, so a second bundled copy of this module still matches. */
export function isWorkspaceEscapeError(error: unknown): error is WorkspaceEscapeError {
  return error instanceof Error && (error as { code?: unknown }).code === 'workspace-escape';
}

/** The real path of the workspace root; the root itself may be reached through a symlink. */
async function realRoot(root: string): Promise<string> {
  try {
    return await fs.realpath(root);
  } catch (error) {
    throw new Error(
      `the workspace root ${JSON.stringify(root)} cannot be resolved (${errorCode(error) ?? String(error)})`,
    );
  }
}

/**
 * A path as compared where the file system may ignore case or Unicode normalization (macOS,
 * Windows): NFC-normalized and case-folded, upper then lower, so `ſ` meets `s` and `K` meets `k`.
 */
export function foldPath(absolute: string): string {
  return absolute.normalize('NFC').toUpperCase().toLowerCase();
}

/** A path relative to the root, with `/` separators, as the tools show it to the model. */
export function displayPath(rootReal: string, absolute: string): string {
  const rel = path.relative(rootReal, absolute);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/** A confined path: the real root and the real path inside it. */
export interface Confined {
  readonly rootReal: string;
  readonly real: string;
}

/**
 * Resolves `userPath` (relative to `root`, or absolute inside it) to a real absolute path inside
 * the real root, or throws {@link WorkspaceEscapeError}. The path need not exist: reads and writes
 * are confined alike, and the caller's open reports a missing file. Only metadata is looked at
 * (realpath, readlink); no file outside the root is opened. Other file-system errors come back
 * reworded by {@link describeFsError}.
 */
export async function resolveInside(root: string, userPath: string): Promise<string> {
  return (await confine(root, userPath)).real;
}

/** {@link resolveInside}, also returning the real root the path was checked against. */
export async function confine(root: string, userPath: string): Promise<Confined> {
  if (userPath.includes('\0')) throw new Error(`path ${JSON.stringify(userPath)} contains a NUL byte`);
  const lexicalRoot = path.resolve(root);
  const rootReal = await realRoot(root);
  const target = path.resolve(lexicalRoot, userPath);
  // Refuse `..` escapes and foreign absolute paths before touching the file system at all.
  if (!isInside(lexicalRoot, target) && !isInside(rootReal, target)) throw new WorkspaceEscapeError(userPath);
  let real: string;
  try {
    real = await realpathAllowMissing(target, 0);
  } catch (error) {
    throw describeFsError(error, userPath);
  }
  if (!isInside(rootReal, real)) {
    throw new WorkspaceEscapeError(userPath, 'it leads through a symbolic link to a location outside');
  }
  return { rootReal, real };
}

/** Symlink hops followed while resolving a dangling link, as the kernel's own ELOOP limit. */
const MAX_LINK_HOPS = 40;

/**
 * `fs.realpath` that tolerates a missing tail: the deepest existing ancestor is resolved and the
 * missing components appended (they cannot be links, since they do not exist). A dangling link is
 * followed to where it points, so a write through it is judged by its target.
 */
export async function realpathAllowMissing(absolute: string, hops = 0): Promise<string> {
  try {
    return await fs.realpath(absolute);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  const link = await readlinkIfLink(absolute);
  if (link !== undefined) {
    if (hops >= MAX_LINK_HOPS) throw new Error(`too many levels of symbolic links in ${absolute}`);
    // The link text is relative to the link's real directory, not to the path written to reach it.
    const dir = await fs.realpath(path.dirname(absolute));
    return realpathAllowMissing(path.resolve(dir, link), hops + 1);
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  return path.join(await realpathAllowMissing(parent, hops), path.basename(absolute));
}

async function readlinkIfLink(absolute: string): Promise<string | undefined> {
  try {
    return await fs.readlink(absolute);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'EINVAL') return undefined;
    throw error;
  }
}

/**
 * Rewrites a Node file-system error about `userPath` as a sentence a model can act on; other
 * errors (and escapes) pass through unchanged.
 */
export function describeFsError(error: unknown, userPath: string): unknown {
  const quoted = JSON.stringify(userPath);
  const code = errorCode(error);
  // The reworded error keeps the system code (never the path or the stack of the original).
  const reworded = (message: string) => Object.assign(new Error(message), { code });
  switch (code) {
    case 'ENOENT':
      return reworded(`path ${quoted} does not exist`);
    case 'ENOTDIR':
    case 'EEXIST':
      return reworded(`path ${quoted} goes through a file as if it were a directory`);
    case 'EISDIR':
      return reworded(`path ${quoted} is a directory`);
    case 'ELOOP':
      return reworded(`path ${quoted} is (or became) a symbolic link or link loop; refusing to follow it`);
    case 'EACCES':
    case 'EPERM':
      return reworded(`permission denied for ${quoted}`);
    default:
      // Any other system error (EMFILE, ENAMETOOLONG, EIO, …): its code and what it means, never
      // Node's message, which names the absolute path.
      return code !== undefined && /^E[A-Z0-9]+$/.test(code)
        ? reworded(systemFailure(quoted, error, code))
        : error;
  }
}

/** `path "x": open failed with EMFILE (too many open files)`, from the error's own fields. */
function systemFailure(quoted: string, error: unknown, code: string): string {
  const { syscall, errno } = error as { syscall?: unknown; errno?: unknown };
  const what = typeof syscall === 'string' && /^[a-z_]{1,32}$/.test(syscall) ? syscall : 'the operation';
  let meaning = '';
  if (typeof errno === 'number') {
    try {
      meaning = ` (${getSystemErrorMessage(errno)})`;
    } catch {
      // An errno this platform has no words for: the code says enough.
    }
  }
  return `path ${quoted}: ${what} failed with ${code}${meaning}`;
}
