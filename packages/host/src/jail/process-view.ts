import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isInside } from '../util/paths.js';
import type { JailControlPath } from '../workspace/control.js';
import { systemLibraries } from './bwrap.js';
import type { JailBind, JailSpec } from './types.js';

/**
 * The views of the jails around the processes the host starts for tools it did not write: the
 * `exec` built-in and stdio MCP servers. Both are built by `bwrapArgs`, the executor's one
 * jail-building function; only what they see differs.
 */

/** Size of a process tool's private `/tmp` (and a server's private home): room for real work. */
export const PROCESS_TMP_BYTES = 256 * 1024 * 1024;

/** Where the network gate's sockets appear inside a jail. */
export const GATE_DIR_IN_JAIL = '/run/toolhost-net';

/** Grants resolved: absolute paths, the host patterns as written, variable names. */
export interface ResolvedProcessGrants {
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly net: readonly string[];
  readonly env: readonly string[];
}

function bind(source: string, at: string = source): JailBind {
  return { source, path: at };
}

/** A path's real form, or undefined when it does not exist. */
function realOrUndefined(file: string): string | undefined {
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

/** Variables of the host a process tool keeps by default: where programs are, who and where it runs. */
const BASE_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'TZ'] as const;

function pick(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    // A shell function exported through the environment ("() { …") is not a value to pass on.
    if (value !== undefined && !value.startsWith('()')) kept[name] = value;
  }
  return kept;
}

/** What `exec`'s jail is built from. */
export interface ExecViewOptions {
  /** The workspace root, real. */
  readonly root: string;
  readonly cwd: string;
  readonly control: readonly JailControlPath[];
  readonly grants: ResolvedProcessGrants;
  readonly env: NodeJS.ProcessEnv;
  readonly seccomp: boolean;
}

/**
 * `exec`'s view: the host's file system read-only (programs, their libraries and the user's
 * tools work as they do outside), the workspace root and `fs.write` grants writable with the
 * control paths held (see {@link holdControlPaths}), a private `/tmp`, `/proc` of its own PID
 * namespace, `/run` empty (the host's Unix sockets, a D-Bus or a Docker socket among them, are
 * there), and a minimal environment: the variables of {@link BASE_ENV}, `TMPDIR`, and those
 * `env` grants.
 */
export function execView(options: ExecViewOptions): JailSpec {
  const writable = [options.root, ...options.grants.write.map((dir) => realOrUndefined(dir) ?? dir)].filter(
    (dir) => existsSync(dir),
  );
  const held = holdControlPaths(writable, options.control);
  // A folder before what is bound inside it (bubblewrap mounts in order): a grant of the
  // workspace's parent must not cover the workspace's own mount.
  const byDepth = [...new Set(writable)].sort((a, b) => a.length - b.length);
  return {
    base: 'host',
    proc: true,
    masks: existsSync('/run') ? ['/run'] : [],
    readOnly: [],
    readWrite: [...byDepth.map((dir) => bind(dir)), ...held.pins],
    readOnlyOver: held.readOnlyOver,
    hide: held.hide,
    env: {
      ...pick(options.env, BASE_ENV),
      ...pick(options.env, options.grants.env),
      TMPDIR: '/tmp',
    },
    tmpBytes: PROCESS_TMP_BYTES,
    seccomp: options.seccomp,
    cwd: options.cwd,
  };
}

/** The system's program and library folders, and `/etc` (its secrets covered below). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Files of `/etc` no server needs and root could read: password hashes, sudo rules. */
const ETC_SECRETS = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers'];
/** Folders of `/etc` with keys, whose files are covered: the host's SSH keys, sudo's drop-ins. */
const ETC_SECRET_DIRS = ['/etc/ssh', '/etc/sudoers.d'];
/** Entries of `/etc` looked at for {@link restrictedFiles} before giving up on the rest (a bound, not a need). */
const ETC_WALK_LIMIT = 20_000;

/**
 * The regular files under `dir` that others may not read, or that sit in a folder others may
 * not enter: what the system keeps from ordinary users by mode alone (TLS and VPN keys, a
 * database's access rules, old password hashes). A server runs as the host's user, and where
 * that user owns them (root in a container) it could read every one. Links are not followed.
 */
export function restrictedFiles(dir: string, limit = ETC_WALK_LIMIT): string[] {
  const found: string[] = [];
  const pending: { dir: string; closed: boolean }[] = [{ dir, closed: false }];
  let seen = 0;
  while (pending.length > 0 && seen < limit) {
    const next = pending.pop() as { dir: string; closed: boolean };
    let names: string[];
    try {
      names = readdirSync(next.dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++seen > limit) break;
      const file = path.join(next.dir, name);
      let stat: ReturnType<typeof lstatSync>;
      try {
        stat = lstatSync(file);
      } catch {
        continue;
      }
      if (stat.isDirectory()) pending.push({ dir: file, closed: next.closed || (stat.mode & 0o001) === 0 });
      else if (stat.isFile() && (next.closed || (stat.mode & 0o004) === 0)) found.push(file);
    }
  }
  return found;
}

/** The package managers that start servers, by command name, and the caches they need. */
const PACKAGE_MANAGERS: Readonly<Record<string, 'npm' | 'uv'>> = {
  npx: 'npm',
  npm: 'npm',
  pnpm: 'npm',
  pnpx: 'npm',
  yarn: 'npm',
  bunx: 'npm',
  uvx: 'uv',
  uv: 'uv',
};

/** The folders a package manager writes (its cache, where `npx` installs the package) and reads. */
function packageManagerBinds(kind: 'npm' | 'uv', home: string): { rw: string[]; ro: string[] } {
  if (kind === 'npm') return { rw: [path.join(home, '.npm')], ro: [] };
  return { rw: [path.join(home, '.cache', 'uv')], ro: [path.join(home, '.local', 'share', 'uv')] };
}

/**
 * Where `command` is on `PATH` (as found, not resolved), if anywhere; a path (`./run.sh`,
 * `/bin/ls`) against `cwd`, as `execvp` takes it.
 */
export function whichCommand(command: string, envPath: string | undefined, cwd = '/'): string | undefined {
  if (command.includes('/')) {
    const file = path.resolve(cwd, command);
    return existsSync(file) ? file : undefined;
  }
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The install folders of a program at `<prefix>/bin/<name>` (its `bin` and `lib`, where Node keeps
 * npm, say), when that prefix is a tool's own: not `/` or `/usr` (bound already), and neither the
 * project, nor a folder holding it or the home folder, whose other files are not the tool's.
 */
function installFolders(found: string, root: string, home: string): string[] {
  const folders: string[] = [];
  for (const file of new Set([found, realOrUndefined(found) ?? found])) {
    const dir = path.dirname(file);
    const prefix = path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
    if (prefix === '/' || prefix === '/usr' || SYSTEM_DIRS.includes(prefix)) continue;
    if (isInside(root, prefix) || isInside(prefix, root) || isInside(prefix, home)) continue;
    for (const part of path.basename(dir) === 'bin' ? ['bin', 'lib'] : ['']) {
      const folder = path.join(prefix, part);
      if (existsSync(folder)) folders.push(folder);
    }
  }
  return folders;
}

/** What a stdio server's jail is built from. */
export interface ServerViewOptions {
  /** The project root, real. */
  readonly root: string;
  readonly command: string;
  /** The working directory asked for (absolute); used only where the jail shows it. */
  readonly cwd: string;
  readonly grants: ResolvedProcessGrants;
  /** The entry's own `env` values. */
  readonly values: Readonly<Record<string, string>>;
  readonly env: NodeJS.ProcessEnv;
  readonly control: readonly JailControlPath[];
  readonly seccomp: boolean;
}

/**
 * A stdio MCP server's view: an empty root with, read-only, the system's program and library
 * folders and `/etc` (password hashes, sudo rules and SSH host keys covered, and every file of it
 * that others may not read: {@link restrictedFiles}), the install folders
 * of its command and of the host's Node; a private `/tmp` and a private, empty home (the real
 * home's path, a tmpfs); the cache of the package manager that starts it, writable (`npx`
 * installs the package there); its own `/proc`; and nothing of the project or the home folder but
 * what `fs.read` and `fs.write` grant. Its environment is `PATH`, `HOME`, `TMPDIR`, the entry's
 * own `env` and the host variables `env` grants, and no other. It starts in `cwd` when the jail
 * shows it, else in `/tmp`.
 */
export function serverView(options: ServerViewOptions): JailSpec & { readonly unseenCwd: boolean } {
  const home = options.env.HOME ?? os.homedir();
  const symlinks: { target: string; path: string }[] = [];
  const readOnly: JailBind[] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const stat = lstatSync(dir);
      if (stat.isSymbolicLink()) symlinks.push({ target: readlinkSync(dir), path: dir });
      else readOnly.push(bind(dir));
    } catch {
      // Not on this system.
    }
  }
  const found = whichCommand(options.command, options.env.PATH);
  const installs = new Set([
    ...installFolders(process.execPath, options.root, home),
    ...(found === undefined ? [] : installFolders(found, options.root, home)),
  ]);
  for (const folder of installs) readOnly.push(bind(folder));
  // The host's Node's libraries, where they are not the system's.
  for (const lib of systemLibraries()) {
    if (!SYSTEM_DIRS.some((dir) => isInside(dir, lib.path))) readOnly.push(lib);
  }
  const manager = PACKAGE_MANAGERS[path.basename(options.command)];
  const pm = manager === undefined ? { rw: [], ro: [] } : packageManagerBinds(manager, home);
  for (const dir of pm.rw) mkdirSync(dir, { recursive: true });
  const reads = [...options.grants.read, ...pm.ro].map((dir) => realOrUndefined(dir)).filter(isString);
  const writes = [...options.grants.write, ...pm.rw].map((dir) => realOrUndefined(dir)).filter(isString);
  // The config is never shown to a server (it holds every server's secrets), nor writable.
  const control = options.control.map((entry) => ({ ...entry, writable: false }));
  const held = holdControlPaths(writes, control);
  const hidden = [
    ...ETC_SECRETS.filter((file) => existsSync(file)),
    ...ETC_SECRET_DIRS.flatMap(filesIn),
    ...restrictedFiles('/etc'),
    ...held.hide,
    ...control
      .filter((entry) => !entry.folder && !entry.readable)
      .map((entry) => realOrUndefined(entry.absolute))
      .filter(isString)
      .filter((file) => reads.some((dir) => isInside(dir, file))),
  ];
  const visible = [...reads, ...writes];
  const unseenCwd = !visible.some((dir) => isInside(dir, options.cwd));
  return {
    base: 'empty',
    proc: true,
    symlinks,
    readOnly: [...readOnly, ...reads.map((dir) => bind(dir))],
    masks: [home],
    readWrite: [
      ...[...new Set(writes)].sort((a, b) => a.length - b.length).map((dir) => bind(dir)),
      ...held.pins,
    ],
    readOnlyOver: held.readOnlyOver,
    hide: [...new Set(hidden)],
    env: {
      ...pick(options.env, ['PATH']),
      HOME: home,
      TMPDIR: '/tmp',
      ...options.values,
      ...pick(options.env, options.grants.env),
    },
    tmpBytes: PROCESS_TMP_BYTES,
    seccomp: options.seccomp,
    cwd: unseenCwd ? '/tmp' : options.cwd,
    unseenCwd,
  };
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(dir, entry.name));
  } catch {
    return [];
  }
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}
