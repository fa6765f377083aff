/**
 * Opening files that `resolveInside` has confined, without trusting that nothing changed since.
 *
 * Between resolving a path and opening it, another process (or a parallel `exec` call) could swap
 * a component for a symlink. Two defences narrow that window:
 * - the final component is opened with `O_NOFOLLOW`, so a file replaced by a link fails (ELOOP);
 * - on Linux, the opened descriptor's true path (`/proc/self/fd/N`) is checked against the root
 *   before a byte is read or written, which also catches a swapped intermediate directory.
 * Remaining race: where `/proc` is unavailable, an intermediate directory swapped for a link to the
 * outside between the check and the open is not detected. On Linux, a write through such a swap can
 * at worst leave empty new directories or an empty new file outside (made by `mkdir` or `O_CREAT`
 * before the check refuses it); it never writes or truncates content there, because truncation
 * happens after the check. Directory listings (`ls`, `grep`'s walk) cannot be opened this way, so a
 * directory swapped mid-call may have its *names* listed; file contents still go through here. Node has no
 * `openat2(RESOLVE_BENEATH)`, which would close the race entirely.
 */
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { describeFsError, errorCode, isInside, WorkspaceEscapeError } from './workspace.js';

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

/**
 * Opens a confined real path for writing, creating it (and missing parent directories) when
 * needed. The file is *not* truncated here: callers truncate only after the checks passed.
 */
export async function openForWrite(
  rootReal: string,
  real: string,
  userPath: string,
): Promise<{ handle: FileHandle; created: boolean }> {
  try {
    await fs.mkdir(path.dirname(real), { recursive: true });
    let created = true;
    let handle: FileHandle;
    try {
      handle = await fs.open(real, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      created = false;
      handle = await fs.open(real, constants.O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
    }
    try {
      await confirmOpenedInside(handle, rootReal, userPath);
      await requireRegularFile(handle, userPath);
      return { handle, created };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } catch (error) {
    throw describeFsError(error, userPath);
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

/** Replaces the contents of a confined file (creating it) with `content`. */
export async function writeTextFile(
  rootReal: string,
  real: string,
  userPath: string,
  content: string,
): Promise<{ created: boolean; bytes: number }> {
  const { handle, created } = await openForWrite(rootReal, real, userPath);
  try {
    const data = Buffer.from(content, 'utf8');
    await handle.truncate(0);
    await handle.writeFile(data);
    return { created, bytes: data.length };
  } finally {
    await handle.close();
  }
}
