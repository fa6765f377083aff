import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** One file as a build reads it. */
export type BuildFileRead =
  | { readonly kind: 'ok'; readonly bytes: Uint8Array }
  /** A folder, a pipe, a device, a socket: nothing a build can bundle. */
  | { readonly kind: 'not-a-file' }
  /** Larger than the bytes the build has left. */
  | { readonly kind: 'too-large' };

/**
 * Reads the files of a plugin build. Every byte a build bundles comes through here, which is what
 * lets the build count them; tests stand in a reader that never answers to exercise the timeout.
 */
export interface BuildFileReader {
  read(file: string, maxBytes: number): Promise<BuildFileRead>;
}

// Non-blocking so that opening a named pipe returns at once (a blocking open waits for a writer
// forever); no-follow so that a file swapped for a symlink after its path was checked is refused.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** Reads regular files only, and no more of one than its size when opened (at most `maxBytes`). */
export const diskReader: BuildFileReader = {
  async read(file, maxBytes) {
    const handle = await open(file, OPEN_FLAGS);
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { kind: 'not-a-file' };
      if (info.size > maxBytes) return { kind: 'too-large' };
      // The size at the stat is what was counted: a file that grows meanwhile is read up to it.
      const buffer = new Uint8Array(info.size);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      return { kind: 'ok', bytes: length === buffer.length ? buffer : buffer.subarray(0, length) };
    } finally {
      await handle.close();
    }
  },
};
