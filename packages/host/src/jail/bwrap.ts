import { spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { seccompProgram } from './seccomp.js';
import type { JailSpec, JailSupport } from './types.js';

/** The file descriptor, in the spawned bubblewrap, that carries the seccomp program. */
export const SECCOMP_FD = 5;

/** Where `bwrap` is on `PATH`, if anywhere. */
export function findBwrap(envPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The bubblewrap arguments for `spec`, before the command. Every namespace bubblewrap can make
 * (user, mount, PID, network, IPC, UTS, cgroup), no further user namespaces, all capabilities
 * dropped (a jail must hold for root too: inside its own user namespace root's capabilities reach
 * nothing outside), a new session (no `TIOCSTI` into the caller's terminal), death with the
 * caller, an empty root that is read-only once the paths of the view are bound into it, a private
 * size-bounded `/tmp`, a minimal `/dev`, no `/proc` (so no `/proc/1/environ`, `/proc/self/mem` or
 * view of other processes), the environment cleared, and the seccomp filter read from
 * {@link SECCOMP_FD} when this architecture has one.
 */
export function bwrapArgs(spec: JailSpec): string[] {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(spec.env)) args.push('--setenv', name, value);
  // The host's tree first, then /dev, /proc and /tmp over it: a path of the view under /tmp is
  // then bound over the private one.
  if (spec.base === 'host') args.push('--ro-bind', '/', '/');
  args.push('--dev', '/dev');
  if (spec.proc === true) args.push('--proc', '/proc');
  args.push('--size', String(spec.tmpBytes), '--tmpfs', '/tmp');
  for (const mask of spec.masks ?? []) args.push('--size', String(spec.tmpBytes), '--tmpfs', mask);
  for (const link of spec.symlinks ?? []) args.push('--symlink', link.target, link.path);
  for (const bind of spec.readOnly) args.push('--ro-bind', bind.source, bind.path);
  for (const bind of spec.readWrite ?? []) args.push('--bind', bind.source, bind.path);
  for (const bind of spec.readOnlyOver ?? []) args.push('--ro-bind', bind.source, bind.path);
  for (const file of spec.hide ?? []) args.push('--ro-bind', '/dev/null', file);
  args.push('--remount-ro', '/');
  args.push('--chdir', spec.cwd ?? '/');
  if (spec.seccomp) args.push('--seccomp', String(SECCOMP_FD));
  return args;
}

let support: JailSupport | undefined;

/**
 * Whether this machine can make the jail, found out once per process: Linux, a `bwrap` on `PATH`,
 * and namespaces it may create (a container or a kernel setting can forbid them), tried by
 * jailing `node --version` with exactly the arguments a jail gets (≈ 10–20 ms).
 */
export function jailSupport(): JailSupport {
  support ??= probe();
  return support;
}

/** Forgets what {@link jailSupport} found (tests). */
export function resetJailSupport(): void {
  support = undefined;
}

function probe(): JailSupport {
  if (process.platform !== 'linux') {
    return {
      available: false,
      reason: `no jail on ${process.platform} yet: the executor runs with the host user's reach (isolates are the one wall)`,
    };
  }
  const bwrap = findBwrap();
  if (bwrap === undefined) {
    return {
      available: false,
      reason: 'bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap)',
    };
  }
  const program = seccompProgram();
  const args = bwrapArgs({
    readOnly: [{ source: process.execPath, path: process.execPath }, ...systemLibraries()],
    env: {},
    tmpBytes: 1024 * 1024,
    seccomp: program !== undefined,
  });
  return probeWith(bwrap, args, program);
}

function probeWith(bwrap: string, args: string[], program: Buffer | undefined): JailSupport {
  const node = process.execPath;
  // spawnSync writes only to stdin: here the program goes in there (`node --version` reads
  // nothing), and bwrap is told to read it from fd 0.
  const probeArgs = args.map((arg, i) => (args[i - 1] === '--seccomp' ? '0' : arg));
  const run = spawnSync(bwrap, [...probeArgs, node, '--version'], {
    env: {},
    encoding: 'utf8',
    input: program ?? '',
    timeout: 10_000,
  });
  if (run.error !== undefined)
    return { available: false, reason: `bubblewrap could not run: ${run.error.message}` };
  if (run.status !== 0 || run.stdout.trim() !== process.version) {
    const said = `${run.stderr}`.trim().split('\n')[0] ?? '';
    return {
      available: false,
      reason: `bubblewrap could not make the jail here (${said || `exit ${run.status ?? run.signal}`}): user namespaces may be disabled (a container, or a kernel setting)`,
    };
  }
  return { available: true, bwrap, seccomp: program !== undefined };
}

let libraries: readonly { source: string; path: string }[] | undefined;

/**
 * The shared libraries the Node binary loads (and, with it, every native addon this host ships,
 * which link against a subset of them), each bound alone at the path the dynamic loader looks
 * at: found with `ldd` once per process. Where `ldd` is missing or says nothing usable, the
 * system's library folders instead (they hold libraries, no shell).
 */
export function systemLibraries(): readonly { source: string; path: string }[] {
  libraries ??= findLibraries();
  return libraries;
}

function findLibraries(): { source: string; path: string }[] {
  // The binary's own dynamic loader lists them as `ldd` does (ldd is a shell script around it):
  // 6 ms against 34 ms, on every start of a host with the jail.
  const loader = interpreterOf(process.execPath);
  const run =
    loader === undefined
      ? spawnSync('ldd', [process.execPath], { encoding: 'utf8', env: {}, timeout: 10_000 })
      : spawnSync(loader, ['--list', process.execPath], { encoding: 'utf8', env: {}, timeout: 10_000 });
  const found = new Map<string, string>();
  if (run.status === 0) {
    for (const line of run.stdout.split('\n')) {
      // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" or "/lib64/ld-linux-x86-64.so.2 (0x…)"
      const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
      if (match?.[1] !== undefined) found.set(match[1], match[1]);
    }
  }
  if (found.size > 0) return [...found.keys()].map((file) => ({ source: file, path: file }));
  return ['/lib', '/lib64', '/usr/lib', '/usr/lib64']
    .filter((dir) => {
      try {
        accessSync(dir);
        return true;
      } catch {
        return false;
      }
    })
    .map((dir) => ({ source: dir, path: dir }));
}

/**
 * The dynamic loader a 64-bit little-endian ELF executable names (its PT_INTERP), when it names
 * one that exists; undefined otherwise (then `ldd` is asked).
 */
export function interpreterOf(file: string): string | undefined {
  let header: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(4096);
      // Only what the file holds: a truncated header names no loader (zeros past its end would
      // read as fields).
      header = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  // "\x7fELF", ELFCLASS64, ELFDATA2LSB.
  if (header.length < 0x40) return undefined; // shorter than an ELF64 header
  if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
  const phoff = Number(header.readBigUInt64LE(0x20));
  const phentsize = header.readUInt16LE(0x36);
  const phnum = header.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 0x28 > header.length) return undefined;
    if (header.readUInt32LE(at) !== 3) continue; // PT_INTERP
    const offset = Number(header.readBigUInt64LE(at + 0x08));
    const size = Number(header.readBigUInt64LE(at + 0x20));
    if (offset + size > header.length || size < 2) return undefined;
    const interpreter = header.toString('latin1', offset, offset + size - 1);
    if (!path.isAbsolute(interpreter)) return undefined;
    try {
      accessSync(interpreter, constants.X_OK);
      return interpreter;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
