import * as path from 'node:path';

/** Whether `candidate` is `root` or lies beneath it. Both must be absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
