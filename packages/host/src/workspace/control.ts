/**
 * The host's control files — the config file in force, the plugins folder, the skills folder,
 * `.toolhost/` and the host's own code — as the built-in tools and plugins' `ctx.fs` see them. A
 * watching host reloads them, so a model or a plugin that could write them could widen its own
 * policy (turn `exec` on, grant a plugin the network), or plant a skill whose description every
 * later session's system prompt lists as the host's. For the built-in tools they are closed by default and the operator
 * opens them through `builtins.controlFiles`; for plugins they are closed always (see
 * {@link ControlGuard.forPlugins}).
 *
 * A target is matched against every control path in three ways, so no second name slips through:
 * - by real path (`confine` already resolved symlinks and `..`), against both the control path as
 *   configured and its real path, computed at each check (a folder may appear, or be a link);
 * - case-folded and Unicode-normalized (NFC), always: whether the file system folds case can differ
 *   per folder (macOS, Windows), so `PLUGINS/x` or `Toolhost.Config.json` is refused everywhere;
 *   on a case-sensitive file system that refuses a few names that are in fact distinct files;
 * - by identity (device and inode) of the target and each existing ancestor up to the root, which
 *   catches what names cannot: a hard link to the config, a bind mount, a Windows short name.
 * A file that does not exist yet is judged by its path, so `plugins/evil/index.ts` is refused
 * before any folder is made.
 */

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../util/paths.js';
import { type Confined, confine, foldPath, realpathAllowMissing } from './confine.js';
import { HOST_CODE } from './control-host-code.js';
import {
  type Audience,
  type ControlEntry,
  type ControlKind,
  type FileId,
  type Located,
  type Operation,
  refusal,
} from './control-refusal.js';

export { hostCodeFoldersOf } from './control-host-code.js';
export {
  ControlFileError,
  type ControlKind,
  type ControlOperation,
  isControlFileError,
} from './control-refusal.js';

/** The HTTP endpoint's bearer tokens (serve/auth/tokens.ts writes it; this layer cannot import that). */
const SECRET_FILE = path.join('.toolhost', 'serve-tokens.json');

/**
 * What the built-in tools may do with the host's control files. Writing them lets a model widen
 * its own policy (turn `exec` on, grant a plugin the network) on the next reload, so both stay
 * closed unless the operator opens them here. `<root>/.toolhost/` (the bundle cache) is never
 * writable. Plugins get none of this: their `ctx.fs` never reaches a control file.
 */
export interface ControlFileAccess {
  /**
   * The config file in force: `none` (default; it may hold MCP server secrets in `headers` and
   * `env`), `read`, or `write` (read and write: the model can change its own policy).
   */
  readonly config?: 'none' | 'read' | 'write';
  /** The plugins folder: `read` (default) or `write` (the model may author plugins the host loads). */
  readonly plugins?: 'read' | 'write';
  /** The skills folder: `read` (default) or `write` (the model may author skills later prompts list). */
  readonly skills?: 'read' | 'write';
}

/** Where the host's control files are; relative paths are resolved against the root. */
export interface ControlPaths {
  /** The config file in force. `<root>/toolhost.config.json` is protected as well, always. */
  readonly configFile?: string;
  /** The plugins folder. Default `<root>/plugins`. */
  readonly pluginsDir?: string;
  /** The skills folder. Default `<root>/skills`. */
  readonly skillsDir?: string;
  /**
   * Folders of the host's own code, never writable (absolute). Default: the running host's and
   * SDK's packages, and the `node_modules` folder they are installed in.
   */
  readonly hostCode?: readonly string[];
}

/** A control path as a process jail must hold it (jail/process-view.ts). */
export interface JailControlPath {
  readonly kind: ControlKind;
  /** Absolute, as configured. */
  readonly absolute: string;
  readonly folder: boolean;
  /** Whether the jailed process may read it (the config: only when `builtins.controlFiles.config` opens it). */
  readonly readable: boolean;
  /** Whether it may write it (only what `builtins.controlFiles` opens on purpose). */
  readonly writable: boolean;
}

/** Access with defaults applied. */
type ResolvedControlAccess = Required<ControlFileAccess>;

function resolveControlAccess(access: ControlFileAccess | undefined): ResolvedControlAccess {
  return {
    config: access?.config ?? 'none',
    plugins: access?.plugins ?? 'read',
    skills: access?.skills ?? 'read',
  };
}

/**
 * One line for `toolhost doctor`: what the built-in tools may do with the control files, and how
 * much that opens (`warning` when the model could change what the host runs).
 */
export function describeControlAccess(access: ControlFileAccess | undefined): {
  readonly level: 'ok' | 'info' | 'warning';
  readonly message: string;
} {
  const { config, plugins, skills } = resolveControlAccess(access);
  if (config === 'none' && plugins === 'read' && skills === 'read') {
    return {
      level: 'ok',
      message:
        "closed (the default): built-in tools cannot write the config file, plugins/, skills/, .toolhost/ or the host's own code, nor read the config",
    };
  }
  const parts = [
    config === 'write'
      ? 'the config file is writable (the model can change its own policy)'
      : config === 'read'
        ? 'the config file is readable, not writable'
        : 'the config file is closed',
    plugins === 'write'
      ? 'plugins/ is writable (the model can author plugins the host loads)'
      : 'plugins/ is read-only',
    skills === 'write'
      ? "skills/ is writable (the model can author skills later sessions' prompts list)"
      : 'skills/ is read-only',
    ".toolhost/ and the host's own code are read-only",
  ];
  return {
    level: config === 'write' || plugins === 'write' || skills === 'write' ? 'warning' : 'info',
    message: `opened by builtins.controlFiles: ${parts.join('; ')}`,
  };
}

/** Refuses what the built-in tools (or plugins, see {@link forPlugins}) may not do to the host's control files. */
export class ControlGuard {
  readonly #entries: readonly ControlEntry[];
  readonly #access: ResolvedControlAccess;
  readonly #audience: Audience;

  /**
   * The guard of plugins' `ctx.fs`, whatever `builtins.controlFiles` says: no control path may be
   * written; the config file may not even be read or stat'ed (it holds every plugin's settings
   * and grants, and MCP server secrets), nor `.toolhost/` (what the host built from every plugin,
   * under their configs, and the quarantine record). Plugin sources and host code stay readable,
   * as for the built-in tools: a plugin may read data files kept in its own folder.
   */
  static forPlugins(root: string, paths: ControlPaths = {}): ControlGuard {
    return new ControlGuard(root, paths, undefined, 'plugins');
  }

  /** `root` must be absolute; relative control paths are resolved against it. */
  constructor(
    root: string,
    paths: ControlPaths = {},
    access?: ControlFileAccess,
    audience: Audience = 'builtins',
  ) {
    const entries: ControlEntry[] = [];
    const configs = new Set([path.resolve(root, 'toolhost.config.json')]);
    if (paths.configFile !== undefined) configs.add(path.resolve(root, paths.configFile));
    for (const file of configs) entries.push({ kind: 'config', absolute: file, folder: false });
    entries.push({
      kind: 'plugins',
      absolute: path.resolve(root, paths.pluginsDir ?? 'plugins'),
      folder: true,
    });
    entries.push({ kind: 'skills', absolute: path.resolve(root, paths.skillsDir ?? 'skills'), folder: true });
    entries.push({ kind: 'cache', absolute: path.resolve(root, '.toolhost'), folder: true });
    // Unreadable as well: a model (or a plugin) that read a token could call as its principal.
    entries.push({ kind: 'secret', absolute: path.resolve(root, SECRET_FILE), folder: false });
    for (const folder of paths.hostCode ?? HOST_CODE)
      entries.push({ kind: 'host', absolute: folder, folder: true });
    this.#entries = entries;
    this.#access = resolveControlAccess(access);
    this.#audience = audience;
  }

  /**
   * The way a file tool reaches a path: `userPath` resolved inside the workspace `root` (see
   * `confine`), then refused with {@link ControlFileError} when it is a control path closed for
   * `operation`. `write`: any control path the tools may not write; `read`: the config file while
   * it is not readable; `cwd`: (inside) a control folder closed for writing, where exec may not start.
   */
  async confine(root: string, userPath: string, operation: Operation): Promise<Confined> {
    const target = await confine(root, userPath);
    await this.#check(operation, target.rootReal, target.real, userPath);
    return target;
  }

  /**
   * Refuses, with {@link ControlFileError}, `operation` at `real`, a path already confined inside
   * `rootReal` (the project root's real path, so every ancestor up to it is looked at). `reach`
   * says where to look each of those paths up by identity (default: the path itself); a caller
   * that holds the folders open passes their descriptors' paths (`workspace/beneath.ts`).
   */
  check(
    rootReal: string,
    real: string,
    userPath: string,
    operation: Operation,
    reach: Reach = unchanged,
  ): Promise<void> {
    return this.#check(operation, rootReal, real, userPath, reach);
  }

  /**
   * For an operation on the directory entry `entry` itself (remove it, move it, or move something
   * onto it; its last name not resolved): refused like a write at it, and also when a control path
   * lies inside it, since removing or replacing a folder removes or replaces what it holds (a
   * config file kept in `conf/`, say). Containment is judged by name (real and configured paths,
   * folded): folders cannot be hard links.
   */
  async checkEntry(
    rootReal: string,
    entry: string,
    userPath: string,
    reach: Reach = unchanged,
  ): Promise<void> {
    await this.#check('write', rootReal, entry, userPath, reach);
    const folded = foldPath(entry);
    const closed = this.#entries.filter((control) => this.#closed(control.kind, 'write'));
    for (const control of await Promise.all(closed.map(locate))) {
      if (control.names.some((name) => name !== folded && isInside(folded, name))) {
        throw refusal('write', control, rootReal, userPath, this.#audience, true);
      }
    }
  }

  /**
   * For a walk over many files (grep): the control files closed for reading, located once, as a
   * test of a real path and its device and inode. Cheap per file, where {@link confine}
   * looks every control path up again.
   */
  async unreadableTest(): Promise<(real: string, id: FileId) => boolean> {
    const closed = this.#entries.filter((entry) => !entry.folder && this.#closed(entry.kind, 'read'));
    if (closed.length === 0) return () => false;
    const located = await Promise.all(closed.map(locate));
    const names = new Set(located.flatMap((control) => control.names));
    const ids = located.flatMap((control) => (control.id === undefined ? [] : [control.id]));
    return (real, id) => names.has(foldPath(real)) || ids.some((known) => sameFile(id, known));
  }

  /**
   * The control paths as a process jail must hold them (jail/process-view.ts): what this guard
   * lets its audience read and write, by the same rule. The mounts of the jail do the rest: they
   * hold for every child process, every symlink and every link the process makes.
   */
  jailPaths(): JailControlPath[] {
    return this.#entries.map((entry) => ({
      kind: entry.kind,
      absolute: entry.absolute,
      folder: entry.folder,
      readable: !this.#closed(entry.kind, 'read'),
      writable: !this.#closed(entry.kind, 'write'),
    }));
  }

  #closed(kind: ControlKind, operation: Operation): boolean {
    if (this.#audience === 'plugins') {
      return operation !== 'read' || kind === 'config' || kind === 'cache' || kind === 'secret';
    }
    switch (kind) {
      case 'secret':
        return true;
      case 'config':
        return operation === 'read' ? this.#access.config === 'none' : this.#access.config !== 'write';
      case 'plugins':
        return operation !== 'read' && this.#access.plugins !== 'write';
      case 'skills':
        return operation !== 'read' && this.#access.skills !== 'write';
      case 'cache':
      case 'host':
        return operation !== 'read';
    }
  }

  async #check(
    operation: Operation,
    rootReal: string,
    real: string,
    userPath: string,
    reach: Reach = unchanged,
  ): Promise<void> {
    const closed = this.#entries.filter(
      (entry) => this.#closed(entry.kind, operation) && (entry.folder || operation !== 'cwd'),
    );
    if (closed.length === 0) return;
    // The target and each ancestor up to the root, all looked up at once: a folder matches anywhere
    // on that chain, a file only as the target itself.
    const chain = closed.some((entry) => entry.folder) ? ancestry(rootReal, real) : [real];
    const [located, ids] = await Promise.all([
      Promise.all(closed.map(locate)),
      Promise.all(chain.map((absolute) => identityOf(reach(absolute)))),
    ]);
    const target = foldPath(real);
    for (const control of located) {
      const hit = control.names.some((name) =>
        control.entry.folder ? isInside(name, target) : name === target,
      );
      if (hit) throw refusal(operation, control, rootReal, userPath, this.#audience);
    }
    for (const control of located) {
      if (control.id === undefined) continue;
      const last = control.entry.folder ? ids.length : 1;
      for (let i = 0; i < last; i++) {
        if (sameFile(ids[i], control.id))
          throw refusal(operation, control, rootReal, userPath, this.#audience);
      }
    }
  }
}

/** Where a path of a check's chain is looked up by identity. */
type Reach = (absolute: string) => string;
const unchanged: Reach = (absolute) => absolute;

/** `real`, then each of its parents up to and including `rootReal` (only `real` when it lies outside). */
function ancestry(rootReal: string, real: string): string[] {
  const chain = [real];
  let current = real;
  while (current !== rootReal) {
    const parent = path.dirname(current);
    if (parent === current || !isInside(rootReal, parent)) break;
    chain.push(parent);
    current = parent;
  }
  return chain;
}

async function locate(entry: ControlEntry): Promise<Located> {
  const [real, id] = await Promise.all([
    realpathAllowMissing(entry.absolute).catch(() => entry.absolute),
    identityOf(entry.absolute),
  ]);
  return { entry, real, names: [foldPath(entry.absolute), foldPath(real)], id };
}

async function identityOf(absolute: string): Promise<FileId | undefined> {
  try {
    const stat = await fs.stat(absolute);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return undefined;
  }
}

function sameFile(a: FileId | undefined, b: FileId): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}
