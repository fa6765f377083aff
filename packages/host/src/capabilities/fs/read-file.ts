import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { failed, limitExceeded } from '../errors.js';
import type { FsOperation } from './context.js';
import { notRegularFile } from './failure.js';
import { isFolder, mustExist, onTarget, openRegular } from './operation.js';

const READ_CHUNK = 64 * 1024;
// A FIFO opened for reading would wait for a writer; non-blocking, the open returns at once.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** `ctx.fs.readFile`: a regular file's UTF-8 text, within `fsMaxBytes`. */
export function readFile(op: FsOperation, userPath: string): Promise<string> {
  const capability = 'fs.readFile';
  return onTarget(op, capability, userPath, 'read', async (target, subject) => {
    if (target.name === undefined) throw isFolder(userPath);
    mustExist(target, userPath);
    const where = op.walk.at(target.parent, target.name);
    const info = await fs.lstat(where);
    if (info.isDirectory()) throw isFolder(userPath);
    if (!info.isFile()) throw notRegularFile(capability, subject, info);
    const { handle } = await openRegular(op, where, READ_FLAGS, {
      capability,
      subject,
      real: target.real,
      userPath,
    });
    try {
      const bytes = await readCapped(handle, op.limits.fsMaxBytes);
      if (bytes === undefined) {
        throw limitExceeded(
          capability,
          `${subject}: the file is over the fsMaxBytes limit of ${op.limits.fsMaxBytes} bytes`,
        );
      }
      return decodeUtf8(capability, subject, bytes);
    } finally {
      await handle.close();
    }
  });
}

/** Reads up to `maxBytes`; undefined when the file holds more (it may have grown since `stat`). */
async function readCapped(handle: FileHandle, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(READ_CHUNK, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return undefined;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(capability: string, subject: string, bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw failed(capability, `${subject} failed: the file is not UTF-8 text`);
  }
}
