import type { Walls } from '../jail/index.js';

/** One line saying which walls stand around plugin code, for `serve`, `dev` and `doctor`. */
export function wallsLine(walls: Walls): string {
  if (walls.jail.up) {
    const filter = walls.jail.seccomp ? ', seccomp' : ', no seccomp filter on this architecture';
    return `two walls: isolates, in an executor process jailed by bubblewrap (own namespaces, no network, no project or home${filter})`;
  }
  return `one wall: isolates only, the executor is NOT jailed: ${walls.jail.reason}`;
}
