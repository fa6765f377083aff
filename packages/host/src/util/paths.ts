import * as os from 'node:os';
import * as path from 'node:path';

/** Whether `candidate` is `root` or lies beneath it. Both must be absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * A path as a jail's refusal shows it (and as a grant takes it): relative to the project `root`
 * inside it, `~/…` in the home folder, else as it is; so the text names no more of the host's
 * layout than the program itself did.
 */
export function grantPath(file: string, root: string, home = os.homedir()): string {
  if (isInside(root, file)) return path.relative(root, file) || '.';
  if (isInside(home, file)) return `~/${path.relative(home, file)}`;
  return file;
}
