/**
 * What the single-path `ctx.fs` operations share, written once: the frame (locate, then run,
 * every failure made safe for plugin code), the checks that a path exists or is not a folder, and
 * the open that confirms it opened the regular file that was judged.
 */
import { promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Target } from '../../workspace/beneath.js';
import { confirmByPath } from './confirm.js';
import type { FsOperation } from './context.js';
import { fsError, fsFailure, notRegularFile, subjectOf } from './failure.js';
import type { Access } from './locate.js';

/**
 * Locates `userPath` for `access` (a denial is thrown as the locator words it), then runs `body`
 * on it; whatever `body` throws reaches plugin code as a {@link CapabilityError} naming only
 * `userPath`.
 */
export async function onTarget<T>(
  op: FsOperation,
  capability: string,
  userPath: string,
  access: Access,
  body: (target: Target, subject: string) => Promise<T>,
): Promise<T> {
  const subject = subjectOf(capability, userPath);
  const target = await op.locator.locate(op.walk, capability, userPath, access);
  try {
    return await body(target, subject);
  } catch (error) {
    throw fsFailure(capability, subject, userPath, error);
  }
}

/** Throws ENOENT when a folder on the way, or the last name, does not exist. */
export function mustExist(target: Target, userPath: string): void {
  if (target.missing.length > 0) throw fsError('ENOENT', userPath, 'does not exist');
}

/** The refusal of a file operation on a folder. */
export const isFolder = (userPath: string): Error =>
  fsError('EISDIR', userPath, 'is a directory; use ctx.fs.readdir to list it');

/**
 * Opens `where` (a name inside a held folder) with `flags`, which hold O_NOFOLLOW, and checks
 * that what it opened is a regular file at the real path that was judged; closes it when not.
 */
export async function openRegular(
  op: FsOperation,
  where: string,
  flags: number,
  judged: {
    readonly capability: string;
    readonly subject: string;
    readonly real: string;
    readonly userPath: string;
  },
): Promise<{ readonly handle: FileHandle; readonly opened: Stats }> {
  const handle = await fs.open(where, flags, 0o666);
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegularFile(judged.capability, judged.subject, opened);
    await confirmByPath(op.walk, where, judged.real, judged.userPath);
    return { handle, opened };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
