import { promises as fs } from 'node:fs';
import type { FsOperation } from './context.js';
import { fsError, fsFailure } from './failure.js';

/**
 * `ctx.fs.rename`: moves the entry (a link as a link) between two names in write roots, making
 * the destination's missing folders. Both names are inside folders the walks hold, so a folder
 * swapped for a link meanwhile changes neither what is moved nor where it goes.
 */
export async function rename(op: FsOperation, from: string, to: string): Promise<void> {
  const capability = 'fs.rename';
  const subject = `ctx.fs.rename of ${JSON.stringify(from)} to ${JSON.stringify(to)}`;
  const source = await op.locator.locateEntry(op.walk, capability, from);
  const target = await op.locator.locateEntry(op.walk, capability, to);
  try {
    if (source.name === undefined || source.missing.length > 0)
      throw fsError('ENOENT', from, 'does not exist');
    if (target.name === undefined) throw fsError('EEXIST', to, 'already exists');
    const moved = op.walk.at(source.parent, source.name);
    await fs.lstat(moved);
    const folder = await op.walk.ensureParent(target);
    await fs.rename(moved, op.walk.at(folder, target.name));
  } catch (error) {
    throw fsFailure(capability, subject, from, error);
  }
}
