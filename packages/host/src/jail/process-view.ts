import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ProcessGrants } from '../config/process-sandbox.js';
import { isInside } from '../util/paths.js';
import type { JailControlPath } from '../workspace/control.js';
import { systemLibraries } from './bwrap.js';
import { bind, holdControlPaths, realOrUndefined } from './hold-control.js';
import type { JailBind, JailSpec } from './types.js';

export { holdControlPaths, JailHoldError } from './hold-control.js';

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
export type ResolvedProcessGrants = ProcessGrants;

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
