import { constants, promises as fs } from 'node:fs';
import { errorCode } from '../../util/errors.js';
import { failed, limitExceeded } from '../errors.js';
import type { FsOperation } from './context.js';
import { notRegularFile } from './failure.js';
import { isFolder, onTarget, openRegular } from './operation.js';

// O_NOFOLLOW: a name swapped for a link since the walk is refused, not followed. O_NONBLOCK: a
// FIFO swapped in since the check fails at once (ENXIO) instead of waiting for a reader.
const APPEND_FLAGS =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** `ctx.fs.appendFile`: appends to a regular file (made if missing), within `fsMaxBytes`. */
export function appendFile(op: FsOperation, userPath: string, data: string): Promise<void> {
  const capability = 'fs.appendFile';
  const size = Buffer.byteLength(data, 'utf8');
  return onTarget(op, capability, userPath, 'write', async (target, subject) => {
    const { name } = target;
    if (name === undefined) throw isFolder(userPath);
    const folder = await op.walk.ensureParent(target);
    const where = op.walk.at(folder, name);
    const info = await fs.lstat(where).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (info?.isDirectory()) throw isFolder(userPath);
    // Anything but a regular file is refused before it is opened at all.
    if (info !== undefined && !info.isFile()) throw notRegularFile(capability, subject, info);
    const { handle, opened } = await openRegular(op, where, APPEND_FLAGS, {
      capability,
      subject,
      real: target.real,
      userPath,
    });
    try {
      if (opened.nlink > 1) {
        throw failed(capability, `${subject} failed: the file has other hard links; refusing to append`);
      }
      if (opened.size + size > op.limits.fsMaxBytes) {
        throw limitExceeded(
          capability,
          `${subject}: the file would grow to ${opened.size + size} bytes, over the fsMaxBytes limit of ${op.limits.fsMaxBytes} bytes`,
        );
      }
      await handle.appendFile(data, 'utf8');
    } finally {
      await handle.close();
    }
  });
}
