import { openSync, readdirSync, readFileSync } from 'node:fs';

/**
 * Descriptors of the host that a child would inherit: a jail must not get them. Node opens
 * every descriptor of its own with close-on-exec, but a descriptor the host process inherited
 * without it (a parent that leaks them: a shell's `exec 40<dir`, an IDE, a process manager)
 * passes through `spawn` and bubblewrap into the jailed process at its number. A folder of the
 * host held that way is a way around every mount of the jail (`/proc/self/fd/40/…`, `openat`),
 * a pipe or socket one to whatever holds its other end. libuv cannot close them, but it puts
 * what a `stdio` entry names at that number in the child: each such number gets `/dev/null`.
 */

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` writes the flags (octal), the same on x86_64 and arm64. */
const O_CLOEXEC = 0o2000000;

/** The host's descriptors from 3 on that have no close-on-exec (Linux; none where `/proc` says nothing). */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      // Closed meanwhile (the listing's own descriptor among them).
      continue;
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

let devNull: number | undefined;

/**
 * `stdio` with `/dev/null` at the number of every descriptor the child would otherwise inherit
 * from the host ({@link inheritableDescriptors}) and that `stdio` does not already fill; the
 * entries in between are `ignore` (which, from 3 on, leaves a number as it is: nothing is there).
 */
export function withoutStrayDescriptors<T>(
  stdio: readonly (T | 'ignore' | number)[],
): (T | 'ignore' | number)[] {
  const out = [...stdio];
  for (const fd of inheritableDescriptors()) {
    if (fd < out.length && out[fd] !== 'ignore') continue;
    devNull ??= openSync('/dev/null', 'r');
    while (out.length < fd) out.push('ignore');
    out[fd] = devNull;
  }
  return out;
}
