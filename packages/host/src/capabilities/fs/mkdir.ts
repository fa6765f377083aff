import { promises as fs } from 'node:fs';
import { errorCode } from '../../util/errors.js';
import { failed } from '../errors.js';
import type { FsOperation } from './context.js';
import { fsError, fsFailure, subjectOf } from './failure.js';

/**
 * `ctx.fs.mkdir`: makes the folder; with `recursive`, its missing parents too (each inside the
 * one before, none followed if it turned into a link) and an existing folder is fine.
 */
export async function mkdir(op: FsOperation, userPath: string, recursive: boolean): Promise<void> {
  const capability = 'fs.mkdir';
  const subject = subjectOf(capability, userPath);
  const exists = () =>
    failed(
      capability,
      `${subject} failed: it already exists (pass { recursive: true } to allow that)`,
      'EEXIST',
    );
  const target = await op.locator.locate(op.walk, capability, userPath, 'write');
  try {
    const { name } = target;
    if (name === undefined) {
      if (!recursive) throw exists();
      return;
    }
    if (!recursive && target.missing.length > 0) throw fsError('ENOENT', userPath, 'does not exist');
    const folder = await op.walk.ensureParent(target);
    const where = op.walk.at(folder, name);
    if (!recursive) {
      if ((await fs.lstat(where).catch(() => undefined)) !== undefined) throw exists();
      await fs.mkdir(where);
      return;
    }
    await fs.mkdir(where).catch(async (error: unknown) => {
      if (errorCode(error) !== 'EEXIST' || (await fs.lstat(where)).isDirectory()) return;
      throw error;
    });
  } catch (error) {
    throw fsFailure(capability, subject, userPath, error);
  }
}
