import { promises as fs } from 'node:fs';
import type { FileStat } from '@toolhost/plugin-sdk';
import type { FsOperation } from './context.js';
import { mustExist, onTarget } from './operation.js';

/** `ctx.fs.stat`: what the path leads to (links followed by the walk, never by the kernel). */
export function stat(op: FsOperation, userPath: string): Promise<FileStat> {
  return onTarget(op, 'fs.stat', userPath, 'read', async (target) => {
    mustExist(target, userPath);
    // Any other name is looked at inside its held folder without following it: a link swapped in
    // since the walk is shown as what it is, never followed.
    const info =
      target.name === undefined
        ? await fs.stat(target.parent.via)
        : await fs.lstat(op.walk.at(target.parent, target.name));
    return { size: info.size, isFile: info.isFile(), isDirectory: info.isDirectory(), mtimeMs: info.mtimeMs };
  });
}
