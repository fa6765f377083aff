import { promises as fs } from 'node:fs';
import { byCodeUnit } from '../../util/compare.js';
import { errorCode } from '../../util/errors.js';
import { failed, limitExceeded } from '../errors.js';
import type { FsOperation } from './context.js';
import { fsError, fsFailure, subjectOf } from './failure.js';

/** More entries than this in one `readdir` reply is refused rather than copied into the isolate. */
const MAX_DIR_ENTRIES = 10_000;

/**
 * `ctx.fs.readdir`: the folder's names, sorted, folders suffixed by `/`. The folder is opened
 * (without following a link) inside the folder the walk holds, and listed through its descriptor.
 */
export async function readdir(op: FsOperation, userPath: string): Promise<string[]> {
  const capability = 'fs.readdir';
  const subject = subjectOf(capability, userPath);
  const target = await op.locator.locate(op.walk, capability, userPath, 'read');
  try {
    if (target.missing.length > 0) throw fsError('ENOENT', userPath, 'does not exist');
    const folder =
      target.name === undefined
        ? target.parent
        : await op.walk.openFolder(target.parent, target.name).catch((error: unknown) => {
            if (errorCode(error) === 'ENOTDIR')
              throw failed(capability, `${subject} failed: it is a file, not a directory`, 'ENOTDIR');
            throw error;
          });
    const entries = await fs.readdir(folder.via, { withFileTypes: true });
    if (entries.length > MAX_DIR_ENTRIES) {
      throw limitExceeded(capability, `${subject}: the directory has more than ${MAX_DIR_ENTRIES} entries`);
    }
    // Links are listed by name and never followed: their targets may lie outside the roots.
    return entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort(byCodeUnit);
  } catch (error) {
    throw fsFailure(capability, subject, userPath, error);
  }
}
