import { promises as fs } from 'node:fs';
import { errorCode } from '../../util/errors.js';
import { replaceFile } from '../../workspace/files.js';
import { limitExceeded } from '../errors.js';
import type { FsOperation } from './context.js';
import { fsFailure, subjectOf } from './failure.js';
import { isFolder } from './operation.js';

/**
 * `ctx.fs.writeFile`: replaces the file atomically (a temporary file in the same held folder,
 * renamed over it), making missing folders on the way, each inside the one before.
 */
export async function writeFile(op: FsOperation, userPath: string, data: string): Promise<void> {
  const capability = 'fs.writeFile';
  const subject = subjectOf(capability, userPath);
  const size = Buffer.byteLength(data, 'utf8');
  if (size > op.limits.fsMaxBytes) {
    throw limitExceeded(
      capability,
      `${subject}: ${size} bytes is over the fsMaxBytes limit of ${op.limits.fsMaxBytes} bytes`,
    );
  }
  const target = await op.locator.locate(op.walk, capability, userPath, 'write');
  try {
    const { name } = target;
    if (name === undefined) throw isFolder(userPath);
    if (target.missing.length === 0) {
      const info = await fs.lstat(op.walk.at(target.parent, name)).catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') return undefined;
        throw error;
      });
      if (info?.isDirectory()) throw isFolder(userPath);
    }
    const folder = await op.walk.ensureParent(target);
    await replaceFile(folder.via, name, userPath, data);
  } catch (error) {
    throw fsFailure(capability, subject, userPath, error);
  }
}
