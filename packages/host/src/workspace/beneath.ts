/**
 * Resolving a path beneath the project root so that what was checked is what is acted on.
 *
 * `confine` judges a path by its real path and the caller then acts *by path*: a folder on the
 * way that is swapped for a symbolic link in between (by a concurrent call of the same plugin,
 * moving a relative link it holds) sends the act somewhere else. Here the path is walked one
 * name at a time instead, each folder opened with `O_DIRECTORY | O_NOFOLLOW` relative to the one
 * before, and every act names its entry as `/proc/self/fd/<folder>/<name>`: Linux resolves that
 * name inside the folder the descriptor holds, wherever that folder is now. A folder held cannot
 * be swapped under the act; a name in it can, and every act on a name follows no link
 * (`O_NOFOLLOW`, `lstat`, `unlink`, `rename`), so it stays in that folder.
 *
 * A link met on the way is read and its text walked in turn, with the same rules: `..` goes back
 * to the folder held before (never above the project root), an absolute link must lead into the
 * project. Where a link leads is decided by this walk, never by the kernel following it, so the
 * real path a caller checks is exactly the folders held and the final name.
 *
 * Where `/proc/self/fd` does not work (macOS, Windows, a foreign `/proc`), folders are named by
 * their real paths (`paths` mode): the same walk and the same checks, but a folder swapped
 * between the walk and the act is not detected there.
 */

import { closeSync, constants, promises as fs, open as openFd } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { errorCode } from '../util/errors.js';
import { isInside } from '../util/paths.js';
import { WorkspaceEscapeError } from './confine.js';

const open = promisify(openFd);

/**
 * Closing a folder's descriptor does no I/O, so it is done at once rather than as a round trip
 * through libuv's pool (a walk closes one per folder).
 */
function close(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
}

/** How folders are held: open descriptors named through `/proc/self/fd`, or their real paths. */
export type FolderMode = 'descriptors' | 'paths';

/** A folder on the way to a target. */
export interface Folder {
  /** Its real path as the walk resolved it: what containment and control checks judge. */
  readonly real: string;
  /** How system calls name it: `/proc/self/fd/<fd>`, or `real` in `paths` mode. */
  readonly via: string;
  readonly fd: number | undefined;
}

/** A request path resolved: the entry `name` in `parent` (after `missing` is made), or the root. */
export interface Target {
  /** The real path the request leads to. */
  readonly real: string;
  /** A symbolic link was followed on the way: the granted roots must be resolved to judge it. */
  readonly linked: boolean;
  /** The deepest existing folder on the way, held until the walk is closed. */
  readonly parent: Folder;
  /** Folders below `parent` that do not exist yet, outermost first (`ensureParent` makes them). */
  readonly missing: readonly string[];
  /** The entry's name; undefined when the target is the project root itself. */
  readonly name: string | undefined;
  /**
   * How system calls reach the target and each folder above it, by real path: through the
   * folders the walk holds (see {@link reach}), so a check by identity (device and inode) looks
   * at what will be acted on, not at whatever the path names now.
   */
  readonly held: ReadonlyMap<string, string>;
}

/** Where to look up `absolute` for `target`: through a held folder when it is one, else by path. */
export function reach(target: Target): (absolute: string) => string {
  return (absolute) => target.held.get(absolute) ?? absolute;
}

/** Symlinks followed in one walk before refusing, as the kernel's own ELOOP limit. */
const MAX_LINK_HOPS = 40;
/** Folders held at once by one walk: a deeper path is refused rather than hold more descriptors. */
export const MAX_DEPTH = 256;

const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

let probed: FolderMode | undefined;

/**
 * Whether `/proc/self/fd/<fd>` names the folder `fd` holds here, probed on the project root once
 * per process: a `/proc` that is missing, or that is not this process's (another PID namespace
 * mounted it), gives `paths`. A root that cannot be opened fails the operation, deciding nothing.
 */
async function detectMode(rootReal: string): Promise<FolderMode> {
  if (probed !== undefined) return probed;
  if (process.platform !== 'linux') return 'paths';
  const fd = await open(rootReal, FOLDER_FLAGS);
  try {
    const [viaProc, held] = await Promise.all([fs.stat(`/proc/self/fd/${fd}/.`), fs.stat(rootReal)]);
    probed = viaProc.ino === held.ino && viaProc.dev === held.dev ? 'descriptors' : 'paths';
  } catch {
    probed = 'paths';
  } finally {
    close(fd);
  }
  return probed;
}

/** An error with a system code, as the fs errors `describeFsError` rewords. */
function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

interface Frame {
  readonly folder: Folder;
  /** Its name in the frame below (undefined for the root). */
  readonly name: string | undefined;
}

/**
 * One operation's walks beneath the project root: every descriptor it opens is closed by
 * {@link close}. Not shared between operations.
 */
export class Beneath {
  readonly rootReal: string;
  readonly mode: FolderMode;
  readonly #lexicalRoot: string;
  readonly #root: Folder;
  readonly #open = new Set<number>();

  private constructor(lexicalRoot: string, root: Folder, mode: FolderMode) {
    this.#lexicalRoot = lexicalRoot;
    this.rootReal = root.real;
    this.#root = root;
    this.mode = mode;
    if (root.fd !== undefined) this.#open.add(root.fd);
  }

  /** Opens the project root; `mode` forces a mode (tests), else descriptors wherever they work. */
  static async open(root: string, mode?: FolderMode): Promise<Beneath> {
    const lexicalRoot = path.resolve(root);
    let rootReal: string;
    try {
      rootReal = await fs.realpath(lexicalRoot);
    } catch (error) {
      // No host path in the message: it may reach plugin code.
      throw systemError(errorCode(error) ?? 'ENOENT', 'the project root cannot be resolved');
    }
    const chosen = mode ?? (await detectMode(rootReal));
    if (chosen === 'paths')
      return new Beneath(lexicalRoot, { real: rootReal, via: rootReal, fd: undefined }, chosen);
    const fd = await open(rootReal, FOLDER_FLAGS);
    return new Beneath(lexicalRoot, { real: rootReal, via: `/proc/self/fd/${fd}`, fd }, chosen);
  }

  /** How system calls name `name` inside `folder`. */
  at(folder: Folder, name: string): string {
    return `${folder.via}/${name}`;
  }

  /**
   * Resolves `relative` (normalized, `/`-separated, no `..`; `.` for the root) for `userPath`.
   * Links on the way are followed by the rules above, and so is a link in the last name unless
   * `followLeaf` is false (rm and rename act on a link itself, never its target). A missing tail is
   * allowed: the target names what an operation would create. Throws {@link WorkspaceEscapeError}
   * for a link leading out of the project, and system errors (`ENOTDIR`, `ELOOP`, …) otherwise.
   */
  async resolve(relative: string, userPath: string, followLeaf: boolean): Promise<Target> {
    const stack: Frame[] = [{ folder: this.#root, name: undefined }];
    const pending = relative === '.' ? [] : relative.split('/');
    /** Set at the first name that does not exist: it and every name after it. */
    let missing: string[] | undefined;
    /** The entry the walk ended on; undefined when it ended on the folder on top of the stack. */
    let leaf: string | undefined;
    let linked = false;
    let hops = 0;
    while (pending.length > 0) {
      const name = pending.shift() as string;
      if (missing !== undefined) {
        // Only link text brings `..` here; below a missing folder it fails as the kernel's would.
        if (name === '..') throw systemError('ENOENT', 'a missing folder on the way');
        if (name !== '' && name !== '.') missing.push(name);
        continue;
      }
      leaf = undefined;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        if (stack.length === 1)
          throw new WorkspaceEscapeError(userPath, 'it leads through a symbolic link to a location outside');
        this.release((stack.pop() as Frame).folder);
        continue;
      }
      const top = stack[stack.length - 1] as Frame;
      const last = pending.length === 0;
      if (last && !followLeaf) {
        leaf = name;
        break;
      }
      const step = last ? await this.#leafKind(top.folder, name) : await this.#enter(top.folder, name);
      if (step.kind === 'folder') {
        stack.push({ folder: step.folder, name });
        if (stack.length > MAX_DEPTH)
          throw systemError('ENAMETOOLONG', `more than ${MAX_DEPTH} folders deep`);
      } else if (step.kind === 'missing') {
        missing = [name];
      } else if (step.kind === 'link') {
        if (++hops > MAX_LINK_HOPS) throw systemError('ELOOP', 'too many levels of symbolic links');
        linked = true;
        pending.unshift(...(await this.#linkNames(step.text, stack, userPath)));
      } else if (last) {
        leaf = name;
      } else {
        throw systemError('ENOTDIR', 'a file on the way');
      }
    }
    // The folders left on the stack are the target's real ancestry: they stay held until the
    // walk is closed, for the operation and for the control check. Folders left behind (by
    // `..` or an absolute link) were closed on the way.
    return this.#target(stack, missing, leaf, linked);
  }

  /** The target once the walk ended; a walk that ended on a folder names it in its parent. */
  #target(
    stack: readonly Frame[],
    missing: string[] | undefined,
    leaf: string | undefined,
    linked: boolean,
  ): Target {
    const held = new Map(stack.map((frame) => [frame.folder.real, frame.folder.via]));
    const top = stack[stack.length - 1] as Frame;
    if (missing !== undefined) {
      const name = missing.pop() as string;
      const real = path.join(top.folder.real, ...missing, name);
      return { real, linked, parent: top.folder, missing, name, held };
    }
    if (leaf !== undefined) {
      const real = path.join(top.folder.real, leaf);
      held.set(real, this.at(top.folder, leaf));
      return { real, linked, parent: top.folder, missing: [], name: leaf, held };
    }
    if (stack.length === 1) {
      return { real: this.rootReal, linked, parent: this.#root, missing: [], name: undefined, held };
    }
    const below = stack[stack.length - 2] as Frame;
    return { real: top.folder.real, linked, parent: below.folder, missing: [], name: top.name, held };
  }

  /** Makes the target's missing folders, each inside the one before, and returns its parent. */
  async ensureParent(target: Target): Promise<Folder> {
    let folder = target.parent;
    for (const name of target.missing) {
      await fs.mkdir(this.at(folder, name)).catch((error: unknown) => {
        if (errorCode(error) !== 'EEXIST') throw error;
      });
      folder = await this.openFolder(folder, name);
    }
    return folder;
  }

  /**
   * Opens the folder `name` in `parent` without following a link: a link there fails with
   * `ELOOP` (it changed since the walk), a file with `ENOTDIR`.
   */
  async openFolder(parent: Folder, name: string): Promise<Folder> {
    const step = await this.#enter(parent, name);
    if (step.kind === 'folder') return step.folder;
    if (step.kind === 'missing') throw systemError('ENOENT', 'missing');
    throw systemError(step.kind === 'link' ? 'ELOOP' : 'ENOTDIR', 'not a folder');
  }

  /**
   * Closes a folder opened by this walk (a no-op in `paths` mode and for the root). Its `via`
   * must not be used after: any open in the process may be given the same descriptor number.
   */
  release(folder: Folder): void {
    if (folder.fd === undefined || folder === this.#root || !this.#open.delete(folder.fd)) return;
    close(folder.fd);
  }

  /** Closes every descriptor still open, the root's included. */
  close(): void {
    for (const fd of this.#open) close(fd);
    this.#open.clear();
  }

  /** What `name` in `parent` is, for a name on the way: entered when it is a folder. */
  async #enter(parent: Folder, name: string): Promise<Step> {
    const where = this.at(parent, name);
    if (this.mode === 'paths') {
      const info = await fs.lstat(where).catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') return undefined;
        throw error;
      });
      if (info === undefined) return { kind: 'missing' };
      if (info.isSymbolicLink()) return { kind: 'link', text: await fs.readlink(where) };
      if (!info.isDirectory()) return { kind: 'other' };
      return { kind: 'folder', folder: { real: path.join(parent.real, name), via: where, fd: undefined } };
    }
    try {
      const fd = await open(where, FOLDER_FLAGS);
      this.#open.add(fd);
      return {
        kind: 'folder',
        folder: { real: path.join(parent.real, name), via: `/proc/self/fd/${fd}`, fd },
      };
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return { kind: 'missing' };
      if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
    }
    // Not a folder: a link (O_NOFOLLOW refused it) or anything else.
    return this.#leafKind(parent, name);
  }

  /** What the last name is: a link (with its text), missing, or something else. */
  async #leafKind(parent: Folder, name: string): Promise<Step> {
    try {
      return { kind: 'link', text: await fs.readlink(this.at(parent, name)) };
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return { kind: 'missing' };
      if (code === 'EINVAL') return { kind: 'other' };
      throw error;
    }
  }

  /**
   * The names a link's text adds to the walk. A relative link continues from the folder holding
   * it; an absolute one must lead into the project (by its real or its configured path) and
   * restarts the walk at the root.
   */
  async #linkNames(text: string, stack: Frame[], userPath: string): Promise<string[]> {
    if (text.includes('\0')) throw systemError('EINVAL', 'a NUL byte in a link');
    if (!path.isAbsolute(text)) return text.split('/');
    const target = path.resolve(text);
    const base = [this.rootReal, this.#lexicalRoot].find((root) => isInside(root, target));
    if (base === undefined) {
      throw new WorkspaceEscapeError(userPath, 'it leads through a symbolic link to a location outside');
    }
    while (stack.length > 1) this.release((stack.pop() as Frame).folder);
    const rel = path.relative(base, target);
    return rel === '' ? [] : rel.split(path.sep);
  }
}

type Step =
  | { readonly kind: 'folder'; readonly folder: Folder }
  | { readonly kind: 'link'; readonly text: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'other' };

/** Runs `work` with a fresh {@link Beneath} on `root`, closing every descriptor it opened after. */
export async function beneath<T>(
  root: string,
  mode: FolderMode | undefined,
  work: (walk: Beneath) => Promise<T>,
): Promise<T> {
  const walk = await Beneath.open(root, mode);
  try {
    return await work(walk);
  } finally {
    walk.close();
  }
}
