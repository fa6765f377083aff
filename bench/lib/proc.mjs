// What the benches read of other processes in /proc (Linux): who is whose parent, and the CPU
// time a process has used.
import { readdirSync, readFileSync } from 'node:fs';

/** Every live process's parent: pid → ppid (processes that end while it reads are left out). */
export function parentsOf() {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  return parents;
}

/** `roots` and all their descendants, from `parents` (see `parentsOf`). */
export function withDescendants(roots, parents = parentsOf()) {
  const found = [...roots];
  for (let i = 0; i < found.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === found[i]) found.push(pid);
  }
  return found;
}

/** CPU time `pid` has used (user + system), µs, or 0 once it is gone. `/proc` counts 10 ms ticks. */
export function cpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}
