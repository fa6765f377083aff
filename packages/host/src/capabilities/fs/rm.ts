import { promises as fs } from 'node:fs';
import { errorCode } from '../../util/errors.js';
import { type Beneath, type Folder, MAX_DEPTH } from '../../workspace/beneath.js';
import { failed } from '../errors.js';
import type { FsOperation } from './context.js';
import { fsError, fsFailure, subjectOf } from './failure.js';

/**
 * `ctx.fs.rm`: removes a file or a link (never its target), an empty folder, or with
 * `recursive` a folder and all it holds; with `force` a missing path is no error.
 */
export async function rm(
  op: FsOperation,
  userPath: string,
  recursive: boolean,
  force: boolean,
): Promise<void> {
  const capability = 'fs.rm';
  const subject = subjectOf(capability, userPath);
  const target = await op.locator.locateEntry(op.walk, capability, userPath);
  try {
    const { name } = target;
    if (name === undefined || target.missing.length > 0) throw fsError('ENOENT', userPath, 'does not exist');
    const where = op.walk.at(target.parent, name);
    const info = await fs.lstat(where);
    if (!info.isDirectory()) await fs.unlink(where);
    else if (recursive) await removeTree(op.walk, target.parent, name, 1);
    else {
      await fs.rmdir(where).catch((error: unknown) => {
        const code = errorCode(error);
        if (code === 'ENOTEMPTY' || code === 'EEXIST') {
          throw failed(
            capability,
            `${subject} failed: the folder is not empty (pass { recursive: true })`,
            'ENOTEMPTY',
          );
        }
        throw error;
      });
    }
  } catch (error) {
    if (force && errorCode(error) === 'ENOENT') return;
    throw fsFailure(capability, subject, userPath, error);
  }
}

/**
 * Removes the folder `name` in `parent` and everything in it, one held folder at a time: each
 * folder is opened without following a link and emptied through its descriptor, so a folder
 * swapped for a link meanwhile is removed as a link, and nothing outside is reached. Entries
 * already gone (a concurrent removal) are skipped.
 */
async function removeTree(walk: Beneath, parent: Folder, name: string, depth: number): Promise<void> {
  if (depth > MAX_DEPTH) throw Object.assign(new Error('too deep'), { code: 'ENAMETOOLONG' });
  const where = walk.at(parent, name);
  let folder: Folder;
  try {
    folder = await walk.openFolder(parent, name);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return;
    if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
    // No longer a folder: the entry itself goes.
    await removeEntry(walk, parent, name, depth + 1);
    return;
  }
  try {
    for (const entry of await fs.readdir(folder.via, { withFileTypes: true })) {
      if (entry.isDirectory()) await removeTree(walk, folder, entry.name, depth + 1);
      else await removeEntry(walk, folder, entry.name, depth + 1);
    }
  } finally {
    walk.release(folder);
  }
  await fs.rmdir(where).catch((error: unknown) => {
    if (errorCode(error) !== 'ENOENT') throw error;
  });
}

/**
 * Unlinks a name that was no folder; one that became a folder meanwhile is removed as one (each
 * such turn counts as a level, so a name swapped back and forth cannot keep this going).
 */
async function removeEntry(walk: Beneath, folder: Folder, name: string, depth: number): Promise<void> {
  await fs.unlink(walk.at(folder, name)).catch(async (error: unknown) => {
    const code = errorCode(error);
    if (code === 'ENOENT') return;
    if (code === 'EISDIR' || code === 'EPERM') await removeTree(walk, folder, name, depth + 1);
    else throw error;
  });
}
