/**
 * The control paths inside a process jail's writable folders, held: each bound read-only over
 * itself, each folder between it and the outermost writable folder a mount point, a missing one
 * made first; and refused, naming the link, when a symbolic link on its way lies in a writable
 * folder (a mount holds the target, not the link). Used by process-view.ts.
 */
import { lstatSync, mkdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../util/paths.js';
import type { JailControlPath } from '../workspace/control.js';
import type { JailBind } from './types.js';

export function bind(source: string, at: string = source): JailBind {
  return { source, path: at };
}

/** A path's real form, or undefined when it does not exist. */
export function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * How the control paths are held inside writable folders: each existing one bound read-only over
 * itself (or, the config while it is closed for reading, covered by an empty file); each folder
 * between a writable root and a control path bound onto itself, so it cannot be renamed away and
 * replaced by one holding a planted file (a mount point cannot be renamed or removed); a link made
 * to a read-only file from a writable folder fails (`EXDEV`: another mount). A control path that
 * does not exist yet inside a writable folder is made first (an empty folder; a config file
 * holding `{}`, which means what no file means) so there is something to hold: otherwise the
 * process could create it.
 */
export function holdControlPaths(
  writable: readonly string[],
  control: readonly JailControlPath[],
): { readonly readOnlyOver: JailBind[]; readonly pins: JailBind[]; readonly hide: string[] } {
  const readOnlyOver: JailBind[] = [];
  const pins = new Map<string, JailBind>();
  const hide: string[] = [];
  // Folders held read-only whatever they hold: a link inside one cannot be replaced.
  const heldFolders = control
    .filter((entry) => entry.folder && !entry.writable)
    .map((entry) => realOrUndefined(entry.absolute))
    .filter((dir): dir is string => dir !== undefined);
  for (const entry of control) {
    if (!entry.writable) refuseLinkedControlPath(writable, heldFolders, entry);
    let real = realOrUndefined(entry.absolute);
    const under = outermost(writable, real ?? entry.absolute);
    if (real === undefined) {
      if (under === undefined || entry.writable) continue;
      try {
        if (entry.folder) mkdirSync(entry.absolute, { recursive: true });
        else {
          mkdirSync(path.dirname(entry.absolute), { recursive: true });
          writeFileSync(entry.absolute, '{}\n', { flag: 'wx' });
        }
      } catch {
        // Made meanwhile by someone else: held below all the same.
      }
      real = realOrUndefined(entry.absolute);
      if (real === undefined) continue;
    }
    if (!entry.readable && !entry.folder) hide.push(real);
    else if (!entry.writable && under !== undefined) readOnlyOver.push(bind(real));
    if (under !== undefined) {
      for (let dir = path.dirname(real); dir !== under && isInside(under, dir); dir = path.dirname(dir)) {
        pins.set(dir, bind(dir));
      }
    }
  }
  const byDepth = (a: JailBind, b: JailBind) => a.path.length - b.path.length;
  return { readOnlyOver: readOnlyOver.sort(byDepth), pins: [...pins.values()].sort(byDepth), hide };
}

/**
 * The outermost of `writable` that holds `file`: every folder below it on the way to `file` must
 * be a mount point. A grant of a folder holding the workspace (its parent, the home folder) is
 * one mount in which the workspace root is a plain folder: held only from the root down, the
 * root itself could be renamed away and replaced.
 */
function outermost(writable: readonly string[], file: string): string | undefined {
  let found: string | undefined;
  for (const root of writable) {
    if (isInside(root, file) && (found === undefined || isInside(root, found))) found = root;
  }
  return found;
}

/** What each kind of control path is, for {@link JailHoldError}'s message. */
const CONTROL_NAMES: Readonly<Record<JailControlPath['kind'], string>> = {
  config: 'the host config file',
  plugins: 'the plugins folder',
  skills: 'the skills folder',
  cache: "the host's .toolhost folder",
  host: "the host's own code",
  secret: "the serve endpoint's token file",
};

/**
 * A control path a jail cannot hold: it is reached through a symbolic link that is an entry of a
 * folder the jailed process may write. A mount holds the link's target, never the link: the
 * process could remove the link and put a file or folder of its own at its name, which the host
 * would load (a config that widens its policy, a skill, a plugin). The jail is not made.
 */
export class JailHoldError extends Error {
  override readonly name = 'JailHoldError';
  readonly code = 'jail-hold';
}

/** Throws {@link JailHoldError} when a symbolic link on the way to `entry` lies in a writable folder. */
function refuseLinkedControlPath(
  writable: readonly string[],
  held: readonly string[],
  entry: JailControlPath,
): void {
  for (const { link, holder } of linksOnTheWay(entry.absolute)) {
    const under = writable.find((root) => isInside(root, holder));
    if (under === undefined || held.some((dir) => isInside(dir, holder))) continue;
    const name = path.relative(under, link) || path.basename(link);
    throw new JailHoldError(
      `the jail cannot hold ${CONTROL_NAMES[entry.kind]} read-only: it is reached through the symbolic link ${JSON.stringify(name)}, in a folder the jail may write, which the program could replace with one of its own that the host would load. Replace the link with what it points to`,
    );
  }
}

/**
 * The symbolic links met resolving `file`, each with the real folder that holds it, in the order
 * the kernel meets them (the links inside a link's text too), up to the first missing name.
 */
function linksOnTheWay(file: string): { link: string; holder: string }[] {
  const found: { link: string; holder: string }[] = [];
  const pending = path.resolve(file).split(path.sep).filter(Boolean);
  let resolved = path.parse(path.resolve(file)).root;
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === '.') continue;
    if (name === '..') {
      resolved = path.dirname(resolved);
      continue;
    }
    const next = path.join(resolved, name);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      break;
    }
    if (!isLink) {
      resolved = next;
      continue;
    }
    found.push({ link: next, holder: resolved });
    if (++hops > 40) break;
    const text = readlinkSync(next);
    if (path.isAbsolute(text)) resolved = path.parse(text).root;
    pending.unshift(...text.split(path.sep).filter(Boolean));
  }
  return found;
}
