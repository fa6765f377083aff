/**
 * Where a `ctx.fs` request path leads, or the denial that names the permission and config key.
 * A request path is relative to the project root and must lie inside an effective root for the
 * operation: read roots for `readFile`, `readdir`, `stat`; write roots for `writeFile`,
 * `appendFile`, `mkdir`, `rm` and `rename` (both ends). It is checked three times:
 * - as text first: absolute paths and `..` segments are refused outright, and the normalized
 *   path must lie under a root (this is also what picks the denial message);
 * - then by walking it beneath the project root (`workspace/beneath.ts`), folder by folder, links
 *   followed by the walk itself: the real path it leads to must lie inside the real path of an
 *   effective root. A link in one granted root may lead into another granted root; a link
 *   leading anywhere else is refused. The folders walked stay held for the operation;
 * - then against the host's control files (`ControlGuard.forPlugins`: by real path, case-folded
 *   and by inode, the inodes looked up through the held folders), whatever the grants: no write-like op on the config, plugins/, .toolhost/ or
 *   host code (for `rm` and `rename`, nor on a folder holding one), no read of the config or
 *   .toolhost/. The refusal's code is `control-file`.
 */

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PluginPermissions } from '@toolhost/plugin-sdk';
import { isInside } from '../../util/paths.js';
import { type Beneath, reach, type Target } from '../../workspace/beneath.js';
import { type ControlGuard, isControlFileError } from '../../workspace/control.js';
import { FS_READ, FS_WRITE, notDeclared, notGranted } from '../denials.js';
import { type CapabilityError, controlFile, denied } from '../errors.js';
import { isAbsoluteLike, normalizeRelative, rootContains } from '../fs-roots.js';
import { declaredRoots } from '../grants.js';
import type { EffectivePermissions } from '../types.js';
import { fsFailure, subjectOf } from './failure.js';

export type Access = 'read' | 'write';

export interface LocatorOptions {
  readonly pluginId: string;
  readonly permissions: PluginPermissions;
  readonly effective: EffectivePermissions;
  /** Refuses the host's control files, whatever the grants. */
  readonly control: ControlGuard;
}

export type Locator = ReturnType<typeof createLocator>;

export function createLocator(options: LocatorOptions) {
  const { pluginId, control } = options;
  const rootsFor = (access: Access) =>
    access === 'write' ? options.effective.fs.write : options.effective.fs.read;

  /** Refuses a host control path (see `ControlGuard.forPlugins`) with a `control-file` error. */
  async function guard(capability: string, check: Promise<void>): Promise<void> {
    try {
      await check;
    } catch (error) {
      if (isControlFileError(error)) throw controlFile(capability, error.message);
      throw error;
    }
  }

  /** The normalized request path, or the denial of an absolute path or a `..` segment. */
  function normalized(capability: string, subject: string, userPath: string): string {
    if (isAbsoluteLike(userPath)) {
      throw denied(
        capability,
        `${subject} is not allowed: absolute paths are refused; use a path relative to the project root`,
      );
    }
    const relative = normalizeRelative(userPath);
    if (relative === undefined) {
      throw denied(capability, `${subject} is not allowed: paths may not contain ".." segments`);
    }
    return relative;
  }

  async function walk(
    walker: Beneath,
    capability: string,
    subject: string,
    userPath: string,
    relative: string,
    followLeaf: boolean,
  ): Promise<Target> {
    return walker.resolve(relative, userPath, followLeaf).catch((error: unknown) => {
      throw fsFailure(capability, subject, userPath, error);
    });
  }

  /**
   * Resolves `userPath` for `capability` (links followed, the last name too), or throws a denial
   * naming permission and config key.
   */
  async function locate(
    walker: Beneath,
    capability: string,
    userPath: string,
    access: Access,
  ): Promise<Target> {
    const subject = subjectOf(capability, userPath);
    const relative = normalized(capability, subject, userPath);
    const roots = rootsFor(access);
    if (!roots.some((r) => rootContains(r, relative)))
      throw await outsideRoots(walker, capability, subject, relative, access);
    const target = await walk(walker, capability, subject, userPath, relative, true);
    // Unlinked, the real path is the path as written, under a root it was checked against.
    if (target.linked && !(await insideSome(walker, roots, target.real))) {
      throw denied(capability, `${subject} is not allowed: ${throughLink(access, roots)}`);
    }
    await guard(capability, control.check(walker.rootReal, target.real, userPath, access, reach(target)));
    return target;
  }

  /**
   * Locates the directory entry `userPath` names for an operation on the entry itself (`rm`,
   * `rename`): its folders are resolved (links followed and confined), its last name is not, so a
   * link is removed or moved as a link and never its target. A granted root itself is refused:
   * a plugin may empty its folder, not remove or move it.
   */
  async function locateEntry(walker: Beneath, capability: string, userPath: string): Promise<Target> {
    const subject = subjectOf(capability, userPath);
    const itself = (granted: string) =>
      denied(
        capability,
        `${subject} is not allowed: it is the granted folder ${JSON.stringify(granted)} itself; a plugin may change what is inside it, not the folder`,
      );
    const roots = options.effective.fs.write;
    const named = roots.find((r) => r === normalizeRelative(userPath) && !isAbsoluteLike(userPath));
    if (named !== undefined) throw itself(named);
    const relative = normalized(capability, subject, userPath);
    if (!roots.some((r) => rootContains(r, relative)))
      throw await outsideRoots(walker, capability, subject, relative, 'write');
    const target = await walk(walker, capability, subject, userPath, relative, false);
    const rootsReal = await Promise.all(roots.map((granted) => realRootOf(walker, granted)));
    if (target.linked && !rootsReal.some((r) => r !== undefined && isInside(r, target.real))) {
      throw denied(capability, `${subject} is not allowed: ${throughLink('write', roots)}`);
    }
    const same = roots.find((_, i) => rootsReal[i] === target.real);
    if (same !== undefined) throw itself(same);
    await guard(capability, control.checkEntry(walker.rootReal, target.real, userPath, reach(target)));
    return target;
  }

  /** Whether `real` lies inside the real path of one of `roots`. */
  async function insideSome(walker: Beneath, roots: readonly string[], real: string): Promise<boolean> {
    for (const granted of roots) {
      const rootReal = await realRootOf(walker, granted);
      if (rootReal !== undefined && isInside(rootReal, real)) return true;
    }
    return false;
  }

  /** The real path of a granted root; undefined when it leads outside the project (never usable). */
  async function realRootOf(walker: Beneath, granted: string): Promise<string | undefined> {
    try {
      return (await walker.resolve(granted, granted, true)).real;
    } catch {
      return undefined;
    }
  }

  /**
   * The path the plugin probably meant when it wrote one relative to a granted folder instead of
   * the project root: `<root>/<path>` exists (for a write: or its folder does). Only the granted
   * folders are looked at, never the path as written: a hint must not tell the plugin whether
   * something exists where it may not look.
   */
  async function meantPath(walker: Beneath, relative: string, access: Access): Promise<string | undefined> {
    for (const granted of rootsFor(access)) {
      if (granted === '.') continue;
      const candidate = `${granted}/${relative}`;
      if (await existsIn(walker, granted, candidate)) return candidate;
      if (access === 'write' && (await existsIn(walker, granted, path.posix.dirname(candidate))))
        return candidate;
    }
    return undefined;
  }

  /** Whether `relative` exists inside the granted root (a link leading out of it counts as absent). */
  async function existsIn(walker: Beneath, granted: string, relative: string): Promise<boolean> {
    try {
      const rootReal = await realRootOf(walker, granted);
      const target = await walker.resolve(relative, relative, true);
      if (rootReal === undefined || !isInside(rootReal, target.real) || target.missing.length > 0)
        return false;
      if (target.name !== undefined) await fs.lstat(walker.at(target.parent, target.name));
      return true;
    } catch {
      return false;
    }
  }

  /** Not under any effective root: say whether the plugin must declare it, or config must grant it. */
  async function outsideRoots(
    walker: Beneath,
    capability: string,
    subject: string,
    relative: string,
    access: Access,
  ): Promise<CapabilityError> {
    const declaredRead = declaredRoots(options.permissions, 'read');
    const declaredWrite = declaredRoots(options.permissions, 'write');
    const declaredFor = access === 'write' ? declaredWrite : [...declaredRead, ...declaredWrite];
    const declared = declaredFor.find((r) => rootContains(r, relative));
    const request = { capability, subject, pluginId };
    if (declared !== undefined) {
      // A read needing a declared write root is granted at fs.write, which allows reading too.
      const kind = access === 'write' || !declaredRead.includes(declared) ? FS_WRITE : FS_READ;
      return notGranted(request, kind, declared);
    }
    const meant = await meantPath(walker, relative, access);
    if (meant !== undefined) {
      return denied(
        capability,
        `${subject} is not allowed: paths are relative to the project root, not to the granted folder; did you mean ${JSON.stringify(meant)}?`,
      );
    }
    const folder =
      capability === 'fs.readdir' || capability === 'fs.mkdir' ? relative : path.posix.dirname(relative);
    if (folder === '.') {
      // Never suggest granting the project root: that would hand over the config and every plugin.
      return denied(
        capability,
        `${subject} is not allowed: it lies directly in the project root, which plugins do not get; keep the plugin's files in a folder, declare it in ${access === 'write' ? FS_WRITE.permission : FS_READ.permission} and grant it at plugins.${pluginId}.grants.${access === 'write' ? FS_WRITE.grantKey : FS_READ.grantKey}`,
      );
    }
    return notDeclared(request, access === 'write' ? FS_WRITE : FS_READ, folder);
  }

  return { locate, locateEntry };
}

/** The denial's reason when a link led out of every granted root. */
function throughLink(access: Access, roots: readonly string[]): string {
  const permission = access === 'write' ? FS_WRITE.permission : FS_READ.permission;
  return `it leads through a symbolic link outside the granted ${permission} roots ${JSON.stringify(roots)}`;
}
