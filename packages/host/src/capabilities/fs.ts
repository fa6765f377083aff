/**
 * `ctx.fs` on the host. A request path is relative to the project root and must lie inside an
 * effective root for the operation: read roots for `readFile`, `readdir`, `stat`; write roots for
 * `writeFile`, `appendFile`, `mkdir`, `rm` and `rename` (both ends). It is checked twice:
 * - as text first: absolute paths and `..` segments are refused outright, and the normalized
 *   path must lie under a root (this is also what picks the denial message);
 * - then on the real path, with the builtins' confinement (`confine` follows every symlink, a
 *   dangling one included), which must land inside the real path of an effective root. A link in
 *   one granted root may lead into another granted root; a link leading anywhere else is refused.
 * - then against the host's control files (`ControlGuard.forPlugins`: by real path, case-folded
 *   and by inode), whatever the grants: no write-like op on the config, plugins/, .toolhost/ or
 *   host code (for `rm` and `rename`, nor on a folder holding one), no read of the config or
 *   .toolhost/. The refusal's code is `control-file`.
 * Files are then opened with the builtins' safe open helpers, which re-check the opened
 * descriptor against that root.
 */

import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FileStat, PluginPermissions } from '@toolhost/plugin-sdk';
import { byCodeUnit } from '../util/compare.js';
import { errorCode } from '../util/errors.js';
import { isInside } from '../util/paths.js';
import { confine, describeFsError, isWorkspaceEscapeError } from '../workspace/confine.js';
import { type ControlGuard, isControlFileError } from '../workspace/control.js';
import { openForRead, writeTextFile } from '../workspace/files.js';
import { FS_READ, FS_WRITE, notDeclared, notGranted } from './denials.js';
import {
  type CapabilityError,
  controlFile,
  denied,
  failed,
  isCapabilityError,
  limitExceeded,
} from './errors.js';
import { isAbsoluteLike, normalizeRelative, rootContains } from './fs-roots.js';
import { declaredRoots } from './grants.js';
import type { CapabilityLimits, EffectivePermissions } from './types.js';

/** More entries than this in one `readdir` reply is refused rather than copied into the isolate. */
const MAX_DIR_ENTRIES = 10_000;
const READ_CHUNK = 64 * 1024;

export interface FsCapabilityOptions {
  readonly pluginId: string;
  readonly root: string;
  readonly permissions: PluginPermissions;
  readonly effective: EffectivePermissions;
  readonly limits: CapabilityLimits;
  /** Refuses the host's control files, whatever the grants. */
  readonly control: ControlGuard;
}

type Access = 'read' | 'write';

/** A request path confined to an effective root: the root's real path and the target's. */
interface Located {
  readonly rootReal: string;
  readonly real: string;
  /** The project root's real path. */
  readonly projectReal: string;
}

export function createFsCapability(options: FsCapabilityOptions) {
  const { pluginId, root, limits, control } = options;

  /** Refuses a host control path (see `ControlGuard.forPlugins`) with a `control-file` error. */
  async function guard(capability: string, check: Promise<void>): Promise<void> {
    try {
      await check;
    } catch (error) {
      if (isControlFileError(error)) throw controlFile(capability, error.message);
      throw error;
    }
  }

  /**
   * Resolves `userPath` for `capability`, or throws a denial naming permission and config key.
   * A control-file refusal names `shown`: the path the plugin wrote, when `userPath` is its folder.
   */
  async function locate(
    capability: string,
    userPath: string,
    access: Access,
    shown = userPath,
  ): Promise<Located> {
    const subject = subjectOf(capability, userPath);
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
    const roots = access === 'write' ? options.effective.fs.write : options.effective.fs.read;
    if (!roots.some((r) => rootContains(r, relative)))
      throw await outsideRoots(capability, subject, relative, access);
    const target = await confine(root, relative).catch((error: unknown) => {
      throw fsFailure(capability, subject, userPath, error);
    });
    const located = await within(capability, subject, target.real, roots, target.rootReal, access);
    await guard(capability, control.check(target.rootReal, target.real, shown, access));
    return located;
  }

  /** The granted root whose real path holds `real`, or a denial (a link led elsewhere). */
  async function within(
    capability: string,
    subject: string,
    real: string,
    roots: readonly string[],
    projectReal: string,
    access: Access,
  ): Promise<Located> {
    for (const granted of roots) {
      const rootReal = await realRootOf(granted);
      if (rootReal !== undefined && isInside(rootReal, real)) return { rootReal, real, projectReal };
    }
    throw denied(
      capability,
      `${subject} is not allowed: it leads through a symbolic link outside the granted ` +
        `${access === 'write' ? FS_WRITE.permission : FS_READ.permission} roots ${JSON.stringify(roots)}`,
    );
  }

  /**
   * Locates the directory entry `userPath` names for an operation on the entry itself (`rm`,
   * `rename`): its folder is resolved (links followed and confined), its last name is not, so a
   * link is removed or moved as a link and never its target. A granted root itself is refused:
   * a plugin may empty its folder, not remove or move it.
   */
  async function locateEntry(capability: string, userPath: string): Promise<Located> {
    const subject = subjectOf(capability, userPath);
    const relative = isAbsoluteLike(userPath) ? undefined : normalizeRelative(userPath);
    const itself = (granted: string) =>
      denied(
        capability,
        `${subject} is not allowed: it is the granted folder ${JSON.stringify(granted)} itself; a plugin may change what is inside it, not the folder`,
      );
    const named = options.effective.fs.write.find((r) => r === relative);
    if (named !== undefined) throw itself(named);
    const parent = await locate(capability, parentOf(userPath, relative), 'write', userPath);
    const real = path.join(parent.real, path.posix.basename(relative ?? ''));
    const located = await within(
      capability,
      subject,
      real,
      options.effective.fs.write,
      parent.projectReal,
      'write',
    );
    for (const granted of options.effective.fs.write) {
      if ((await realRootOf(granted)) === real) throw itself(granted);
    }
    await guard(capability, control.checkEntry(parent.projectReal, real, userPath));
    return located;
  }

  /** The real path of a granted root; undefined when it leads outside the project (never usable). */
  async function realRootOf(granted: string): Promise<string | undefined> {
    try {
      return (await confine(root, granted)).real;
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
  async function meantPath(relative: string, access: Access): Promise<string | undefined> {
    const roots = access === 'write' ? options.effective.fs.write : options.effective.fs.read;
    for (const granted of roots) {
      if (granted === '.') continue;
      const candidate = `${granted}/${relative}`;
      if (await existsIn(granted, candidate)) return candidate;
      if (access === 'write' && (await existsIn(granted, path.posix.dirname(candidate)))) return candidate;
    }
    return undefined;
  }

  /** Whether `relative` exists inside the granted root (a link leading out of it counts as absent). */
  async function existsIn(granted: string, relative: string): Promise<boolean> {
    try {
      const rootReal = await realRootOf(granted);
      const { real } = await confine(root, relative);
      if (rootReal === undefined || !isInside(rootReal, real)) return false;
      await fs.lstat(real);
      return true;
    } catch {
      return false;
    }
  }

  /** Not under any effective root: say whether the plugin must declare it, or config must grant it. */
  async function outsideRoots(
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
    const meant = await meantPath(relative, access);
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

  async function readFile(userPath: string): Promise<string> {
    const capability = 'fs.readFile';
    const subject = subjectOf(capability, userPath);
    const { rootReal, real } = await locate(capability, userPath, 'read');
    try {
      await refuseDirectory(real, userPath);
      const handle = await openForRead(rootReal, real, userPath);
      try {
        const bytes = await readCapped(handle, limits.fsMaxBytes);
        if (bytes === undefined) {
          throw limitExceeded(
            capability,
            `${subject}: the file is over the fsMaxBytes limit of ${limits.fsMaxBytes} bytes`,
          );
        }
        return decodeUtf8(capability, subject, bytes);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function writeFile(userPath: string, data: string): Promise<void> {
    const capability = 'fs.writeFile';
    const subject = subjectOf(capability, userPath);
    const size = Buffer.byteLength(data, 'utf8');
    if (size > limits.fsMaxBytes) {
      throw limitExceeded(
        capability,
        `${subject}: ${size} bytes is over the fsMaxBytes limit of ${limits.fsMaxBytes} bytes`,
      );
    }
    const { rootReal, real } = await locate(capability, userPath, 'write');
    try {
      await refuseDirectory(real, userPath);
      // Creates missing parent folders; they lie inside the root, as `locate` checked the full path.
      await writeTextFile(rootReal, real, userPath, data);
    } catch (error) {
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function readdir(userPath: string): Promise<string[]> {
    const capability = 'fs.readdir';
    const subject = subjectOf(capability, userPath);
    const { real } = await locate(capability, userPath, 'read');
    try {
      const entries = await fs.readdir(real, { withFileTypes: true }).catch((error: unknown) => {
        if (errorCode(error) === 'ENOTDIR')
          throw failed(capability, `${subject} failed: it is a file, not a directory`, 'ENOTDIR');
        throw error;
      });
      if (entries.length > MAX_DIR_ENTRIES) {
        throw limitExceeded(capability, `${subject}: the directory has more than ${MAX_DIR_ENTRIES} entries`);
      }
      // Links are listed by name and never followed: their targets may lie outside the roots.
      return entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort(byCodeUnit);
    } catch (error) {
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function stat(userPath: string): Promise<FileStat> {
    const capability = 'fs.stat';
    const subject = subjectOf(capability, userPath);
    const { real } = await locate(capability, userPath, 'read');
    try {
      // `real` is fully resolved already; lstat keeps a link swapped in meanwhile from being followed.
      const info = await fs.lstat(real);
      return {
        size: info.size,
        isFile: info.isFile(),
        isDirectory: info.isDirectory(),
        mtimeMs: info.mtimeMs,
      };
    } catch (error) {
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function appendFile(userPath: string, data: string): Promise<void> {
    const capability = 'fs.appendFile';
    const subject = subjectOf(capability, userPath);
    const size = Buffer.byteLength(data, 'utf8');
    const { rootReal, real } = await locate(capability, userPath, 'write');
    try {
      await refuseDirectory(real, userPath);
      await fs.mkdir(path.dirname(real), { recursive: true });
      // O_NOFOLLOW: a final component swapped for a link since `locate` is refused, not followed.
      const handle = await fs.open(
        real,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
        0o666,
      );
      try {
        const info = await handle.stat();
        if (!info.isFile()) throw failed(capability, `${subject} failed: it is not a regular file`);
        if (info.nlink > 1) {
          throw failed(capability, `${subject} failed: the file has other hard links; refusing to append`);
        }
        const opened = await fs.realpath(real);
        if (!isInside(rootReal, opened))
          throw denied(capability, `${subject} is not allowed: it leads outside the granted folder`);
        if (info.size + size > limits.fsMaxBytes) {
          throw limitExceeded(
            capability,
            `${subject}: the file would grow to ${info.size + size} bytes, over the fsMaxBytes limit of ${limits.fsMaxBytes} bytes`,
          );
        }
        await handle.appendFile(data, 'utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function mkdir(userPath: string, recursive: boolean): Promise<void> {
    const capability = 'fs.mkdir';
    const subject = subjectOf(capability, userPath);
    const { real } = await locate(capability, userPath, 'write');
    try {
      if (!recursive) {
        const info = await fs.lstat(real).catch(() => undefined);
        if (info !== undefined) {
          throw failed(
            capability,
            `${subject} failed: it already exists (pass { recursive: true } to allow that)`,
            'EEXIST',
          );
        }
      }
      // `real` is fully resolved inside the root: every folder made is inside it.
      await fs.mkdir(real, { recursive });
    } catch (error) {
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function rm(userPath: string, recursive: boolean, force: boolean): Promise<void> {
    const capability = 'fs.rm';
    const subject = subjectOf(capability, userPath);
    const { real } = await locateEntry(capability, userPath);
    try {
      const info = await fs.lstat(real);
      if (!info.isDirectory()) await fs.unlink(real);
      else if (!recursive) {
        await fs.rmdir(real).catch((error: unknown) => {
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
      // Links inside are removed as links, never followed.
      else await fs.rm(real, { recursive: true });
    } catch (error) {
      if (force && errorCode(error) === 'ENOENT') return;
      throw fsFailure(capability, subject, userPath, error);
    }
  }

  async function rename(from: string, to: string): Promise<void> {
    const capability = 'fs.rename';
    const subject = `ctx.fs.rename of ${JSON.stringify(from)} to ${JSON.stringify(to)}`;
    const source = await locateEntry(capability, from);
    const target = await locateEntry(capability, to);
    try {
      await fs.lstat(source.real);
      await fs.mkdir(path.dirname(target.real), { recursive: true });
      await fs.rename(source.real, target.real);
    } catch (error) {
      throw fsFailure(capability, subject, from, error);
    }
  }

  return { readFile, writeFile, appendFile, readdir, stat, mkdir, rm, rename };
}

/** The folder of a request path, as a request path (`.` for a name at the top). */
function parentOf(userPath: string, relative: string | undefined): string {
  // An unnormalizable path is passed on whole, for `locate` to refuse with its own message.
  if (relative === undefined || isAbsoluteLike(userPath)) return userPath;
  return path.posix.dirname(relative);
}

async function refuseDirectory(real: string, userPath: string): Promise<void> {
  const info = await fs.lstat(real).catch(() => undefined);
  if (info?.isDirectory()) {
    throw Object.assign(
      new Error(`path ${JSON.stringify(userPath)} is a directory; use ctx.fs.readdir to list it`),
      { code: 'EISDIR' },
    );
  }
}

/** Reads up to `maxBytes`; undefined when the file holds more (it may have grown since `stat`). */
async function readCapped(handle: fs.FileHandle, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(READ_CHUNK, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return undefined;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(capability: string, subject: string, bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw failed(capability, `${subject} failed: the file is not UTF-8 text`);
  }
}

/**
 * Turns whatever a file operation threw into a {@link CapabilityError} safe for plugin code:
 * escapes become denials, system errors are reworded from their code (a raw Node message would
 * carry the absolute host path), and the helpers' own messages name only the plugin's path.
 */
function fsFailure(capability: string, subject: string, userPath: string, error: unknown): CapabilityError {
  if (isCapabilityError(error)) return error;
  if (isWorkspaceEscapeError(error)) {
    return denied(capability, `${subject} is not allowed: it leads outside the project root`);
  }
  const code = errorCode(error);
  const systemCode = code !== undefined && /^E[A-Z]+$/.test(code) ? code : undefined;
  // The builtins' own messages start with the quoted user path; others may hold host paths.
  if (error instanceof Error && /^(path|file) "/.test(error.message)) {
    return failed(capability, `${subject} failed: ${error.message}`, systemCode);
  }
  if (systemCode !== undefined) {
    const described = describeFsError(error, userPath);
    if (described === error) return failed(capability, `${subject} failed (${code})`, systemCode);
    return failed(capability, `${subject} failed: ${(described as Error).message}`, systemCode);
  }
  return failed(capability, `${subject} failed`);
}

const subjectOf = (capability: string, userPath: string) =>
  `ctx.${capability} of ${JSON.stringify(userPath)}`;
