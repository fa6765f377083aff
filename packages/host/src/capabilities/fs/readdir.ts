import { promises as fs } from 'node:fs';
import { byCodeUnit } from '../../util/compare.js';
import { errorCode } from '../../util/errors.js';
import { failed, limitExceeded } from '../errors.js';
import type { FsOperation } from './context.js';
import { mustExist, onTarget } from './operation.js';

/** More entries than this in one `readdir` reply is refused rather than copied into the isolate. */
const MAX_DIR_ENTRIES = 10_000;

/**
 * `ctx.fs.readdir`: the folder's names, sorted, folders suffixed by `/`. The folder is opened
 * (without following a link) inside the folder the walk holds, and listed through its descriptor.
 */
export function readdir(op: FsOperation, userPath: string): Promise<string[]> {
  const capability = 'fs.readdir';
  return onTarget(op, capability, userPath, 'read', async (target, subject) => {
    mustExist(target, userPath);
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
  });
}
