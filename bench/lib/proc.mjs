// What the benches read of other processes in /proc (Linux): who is whose child, and the CPU time
// a process has used. One reader for bench/boundary.mjs, bench/polling.mjs and bench/scale-phase.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Whether this system has /proc to read. */
export const HAS_PROC = existsSync('/proc/self/stat');

/** `{ppid, state, cpuUs}` of a process (utime+stime), or undefined when it is gone or unreadable. */
export function procStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { state: fields[0], ppid: Number(fields[1]), cpuUs: (ticks * 1e6) / TICKS_PER_SECOND };
}

/** Every live process's children, by parent pid (zombies left out). */
export function childrenByParent() {
  const children = new Map();
  if (!HAS_PROC) return children;
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child)) continue;
    const stat = procStat(child);
    if (stat === undefined || stat.state === 'Z') continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(child);
    children.set(stat.ppid, list);
  }
  return children;
}

/** The live descendants of `roots` (all generations, or children only unless `deep`), roots not included. */
export function familyOf(roots, deep = true, children = childrenByParent()) {
  const found = [];
  const queue = [...roots];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      if (deep) queue.push(child);
    }
  }
  return found;
}

/** Every live descendant of `pid`. */
export function descendantsOf(pid) {
  return familyOf([pid]);
}

/** The live children of `pid`. */
export function childrenOf(pid) {
  return familyOf([pid], false);
}

/** `roots` and all their live descendants. */
export function withDescendants(roots, children = childrenByParent()) {
  return [...roots, ...familyOf(roots, true, children)];
}

/**
 * Whether process `pid` starts or runs the host's executor: its command line names the entry
 * (bubblewrap's, for a jailed executor, and the Node process inside it).
 */
export function isExecutorProcess(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('executor-main');
  } catch {
    return false; // gone meanwhile
  }
}

/** CPU time `pid` has used (user + system), µs, or 0 once it is gone. */
export function cpuMicros(pid) {
  return procStat(pid)?.cpuUs ?? 0;
}

/**
 * The CPUs this process may run on (its cpuset, `Cpus_allowed_list` in /proc/self/status: `0-3,6`
 * gives [0, 1, 2, 3, 6]); none off Linux.
 */
export function allowedCpus() {
  if (!HAS_PROC) return [];
  const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
  return list
    .split(',')
    .filter((part) => part.trim() !== '')
    .flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
}
