/**
 * Opening files that `resolveInside` has confined, without trusting that nothing changed since.
 *
 * Between resolving a path and opening it, another process (or a parallel `exec` call) could swap
 * a component for a symlink. Two defences narrow that window:
 * - the final component is opened with `O_NOFOLLOW`, so a file replaced by a link fails (ELOOP);
 * - on Linux, the opened descriptor's true path (`/proc/self/fd/N`) is checked against the root
 *   before a byte is read or written, which also catches a swapped intermediate directory.
 * Writes never open the target: they fill a temporary file beside it, checked the same way, and
 * rename it over the target (see {@link writeTextFile}).
 * Remaining race: where `/proc` is unavailable, an intermediate directory swapped for a link to the
 * outside between the check and the open is not detected. On Linux, a write through such a swap can
 * at worst leave empty new directories outside (made by `mkdir` before the check refuses it); the
 * temporary file is removed when the check fails, and no content is written there. A swap between
 * that check and the rename (both by path: Node has no `renameat`) makes the rename fail, unless
 * the swapper also moved the temporary file. Directory listings (`ls`, `grep`'s walk) cannot be
 * opened this way, so a directory swapped mid-call may have its *names* listed; file contents
 * still go through here. Node has no `openat2(RESOLVE_BENEATH)`, which would close the race
 * entirely.
 */

import { randomBytes } from 'node:crypto';
import { constants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode } from '../util/errors.js';
import { isInside } from '../util/paths.js';
import { describeFsError, WorkspaceEscapeError } from './confine.js';

// Absent on Windows, where these flags do not exist; 0 leaves the open as it would be without them.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO opened for reading would block until a writer appears; non-blocking open refuses to wait.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Throws when the opened descriptor does not lie inside the root (Linux; elsewhere a no-op). */
async function confirmOpenedInside(handle: FileHandle, rootReal: string, userPath: string): Promise<void> {
  let actual: string;
  try {
    actual = await fs.readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return;
  }
  if (!isInside(rootReal, actual)) {
    throw new WorkspaceEscapeError(
      userPath,
      'it changed into a link to a location outside while being opened',
    );
  }
}

/** Opens a confined real path for reading; it must be a regular file. */
export async function openForRead(rootReal: string, real: string, userPath: string): Promise<FileHandle> {
  const handle = await fs.open(real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    throw describeFsError(error, userPath);
  });
  try {
    await confirmOpenedInside(handle, rootReal, userPath);
    await requireRegularFile(handle, userPath);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function requireRegularFile(handle: FileHandle, userPath: string): Promise<void> {
  const stat = await handle.stat();
  if (stat.isDirectory())
    throw new Error(`path ${JSON.stringify(userPath)} is a directory; use ls to list it`);
  if (!stat.isFile()) throw new Error(`path ${JSON.stringify(userPath)} is not a regular file`);
}

/**
 * Reads a confined file as UTF-8 text, refusing files over `maxBytes` and binary files (those with
 * NUL bytes), with messages that say what to do instead.
 */
export async function readTextFile(
  rootReal: string,
  real: string,
  userPath: string,
  options: { maxBytes: number; signal: AbortSignal },
): Promise<string> {
  const handle = await openForRead(rootReal, real, userPath);
  try {
    const tooLarge = (size: number) =>
      new Error(
        `file ${JSON.stringify(userPath)} is ${size} bytes, over the ${options.maxBytes}-byte read limit; use grep to find the lines you need`,
      );
    const { size } = await handle.stat();
    if (size > options.maxBytes) throw tooLarge(size);
    const buffer = await handle.readFile({ signal: options.signal });
    if (buffer.length > options.maxBytes) throw tooLarge(buffer.length);
    if (buffer.includes(0)) {
      throw new Error(
        `file ${JSON.stringify(userPath)} looks binary (it contains NUL bytes); only UTF-8 text files can be read`,
      );
    }
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The stages of {@link writeTextFile}, in order; a test may fail any of them to check the cleanup. */
export type WriteStep = 'created' | 'written' | 'synced';

/** How {@link writeTextFile} runs; for tests. */
export interface WriteOptions {
  /** Called after each stage, before the next; a throw fails the write there. */
  readonly afterStep?: (step: WriteStep) => void | Promise<void>;
}

/**
 * Replaces the contents of a confined file (creating it and missing parent folders) atomically:
 * the content goes to a temporary file beside it, is flushed to disk, and is renamed over the
 * target, so a reader — or the file after a crash — sees the old content or the new, never a mix
 * or an empty file. The temporary file is removed when any step fails.
 *
 * An existing file keeps its permission bits (not set-user/group-ID: a rewrite drops them, as the
 * kernel does on write) and, where the process may, its owner. A file with more than one link is
 * refused: writing in place would change its other names (possibly outside the root), and a rename
 * would silently split them. The target itself is never opened, so a target swapped for a link
 * or a FIFO is refused by `lstat`, and the rename replaces a directory entry without following it.
 */
export async function writeTextFile(
  rootReal: string,
  real: string,
  userPath: string,
  content: string,
  options: WriteOptions = {},
): Promise<{ created: boolean; bytes: number }> {
  const dir = path.dirname(real);
  await fs.mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw describeFsError(error, userPath);
  });
  return replaceFile(dir, path.basename(real), userPath, content, {
    ...options,
    confirm: (handle) => confirmOpenedInside(handle, rootReal, userPath),
  });
}

/** How {@link replaceFile} runs. */
export interface ReplaceOptions extends WriteOptions {
  /** Checks the temporary file once opened, before anything is written to it. */
  readonly confirm?: (handle: FileHandle) => Promise<void>;
}

/**
 * {@link writeTextFile} in an existing folder `dir` — a real path, or `/proc/self/fd/<fd>` for a
 * folder held open (see `beneath.ts`) — naming the file `name` there: the temporary file is made
 * in that same folder and renamed over `name` in it, so neither step can land anywhere else.
 */
export async function replaceFile(
  dir: string,
  name: string,
  userPath: string,
  content: string,
  options: ReplaceOptions = {},
): Promise<{ created: boolean; bytes: number }> {
  const target = `${dir}/${name}`;
  const existing = await fs.lstat(target).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw describeFsError(error, userPath);
  });
  if (existing !== undefined) requireSingleRegularFile(existing, userPath);
  const data = Buffer.from(content, 'utf8');
  const temp = `${dir}/${temporaryName(name)}`;
  let handle: FileHandle | undefined;
  try {
    // 0o600 until the old mode is copied, so the new content is never more exposed than the old.
    handle = await fs.open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
      existing === undefined ? 0o666 : 0o600,
    );
    await options.confirm?.(handle);
    if (existing !== undefined) await keepOwnerAndMode(handle, existing);
    await options.afterStep?.('created');
    await handle.writeFile(data);
    await options.afterStep?.('written');
    await handle.sync();
    await options.afterStep?.('synced');
    await handle.close();
    handle = undefined;
    await fs.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => {});
    await fs.unlink(temp).catch(() => {});
    if (errorCode(error) === 'EACCES' || errorCode(error) === 'EPERM') {
      throw new Error(
        `permission denied writing ${JSON.stringify(userPath)}: writes are atomic (a temporary file beside it, then a rename), so its folder must be writable`,
      );
    }
    throw describeFsError(error, userPath);
  }
  return { created: existing === undefined, bytes: data.length };
}

/**
 * A hidden name beside the target, unique per write, that says whose it is if a crash leaves it
 * behind; a name too long to extend gets a generic one (file names are limited to 255 bytes).
 */
function temporaryName(base: string): string {
  const unique = randomBytes(6).toString('hex');
  return Buffer.byteLength(base) <= 200 ? `.${base}.${unique}.tmp` : `.toolhost-write.${unique}.tmp`;
}

function requireSingleRegularFile(stat: Stats, userPath: string): void {
  const quoted = JSON.stringify(userPath);
  if (stat.isSymbolicLink()) {
    throw new Error(`path ${quoted} is (or became) a symbolic link or link loop; refusing to follow it`);
  }
  if (stat.isDirectory()) throw new Error(`path ${quoted} is a directory; use ls to list it`);
  if (!stat.isFile()) throw new Error(`path ${quoted} is not a regular file`);
  if (stat.nlink > 1) {
    throw new Error(
      `file ${quoted} has ${stat.nlink} hard links (other names for the same file, possibly outside the workspace); ` +
        'built-in tools do not write such files. Remove the other links, or copy the file and write the copy',
    );
  }
}

async function keepOwnerAndMode(handle: FileHandle, existing: Stats): Promise<void> {
  await handle.chmod(existing.mode & 0o777);
  if (process.getuid === undefined || process.getgid === undefined) return;
  if (existing.uid === process.getuid() && existing.gid === process.getgid()) return;
  // Only a privileged process may give a file away; otherwise the rewrite belongs to this user.
  await handle.chown(existing.uid, existing.gid).catch(() => {});
}
