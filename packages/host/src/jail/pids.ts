import { readFileSync } from 'node:fs';

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The host's pid of the command bubblewrap `bwrapPid` jails: bubblewrap forks into the new
 * namespaces, where its child is PID 1 (a reaper) and the command that child's child. Undefined
 * while it is not there yet, once it is gone, or where `/proc` does not list children.
 */
export function jailedPid(bwrapPid: number): number | undefined {
  for (const reaper of childrenOf(bwrapPid)) {
    const [command] = childrenOf(reaper);
    if (command !== undefined) return command;
  }
  return undefined;
}
