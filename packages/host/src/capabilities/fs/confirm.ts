import { promises as fs } from 'node:fs';
import type { Beneath } from '../../workspace/beneath.js';
import { foldPath, WorkspaceEscapeError } from '../../workspace/confine.js';

/**
 * Where folders are named by path (no `/proc/self/fd`), a file just opened is checked to still
 * resolve to the real path that was judged, as before descriptors were used: this narrows the
 * window of a folder swapped for a link on the way, without closing it. Held folders need no
 * such check: the name was opened inside the folder that was judged.
 */
export async function confirmByPath(
  walk: Beneath,
  where: string,
  real: string,
  userPath: string,
): Promise<void> {
  if (walk.mode !== 'paths') return;
  // Folded: where case is ignored (macOS), the real path may be spelled otherwise than written.
  if (foldPath(await fs.realpath(where)) !== foldPath(real)) {
    throw new WorkspaceEscapeError(userPath, 'it changed into a link to another location while being opened');
  }
}
