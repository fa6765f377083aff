import { foldPath } from './confine.js';

/**
 * A lock per key: `run(key, fn)` waits for every earlier holder of the same key, so calls that
 * change one file run one after the other (the second sees the first one's result), while calls on
 * different files run in parallel. An entry lives only while a holder or a waiter exists: the last
 * one out removes it, so keys never accumulate.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Keys held or waited for right now. */
  get size(): number {
    return this.#tails.size;
  }

  async run<T>(key: string, critical: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    let release!: () => void;
    const tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#tails.set(key, tail);
    try {
      if (previous !== undefined) await previous;
      return await critical();
    } finally {
      // A later caller has queued behind us when the tail is no longer ours; it removes the entry.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
      release();
    }
  }
}

/**
 * The lock of every file-changing built-in, keyed by real path. One per process, not per tool set:
 * the file system is shared by every host and by the tool sets a config reload replaces while
 * their calls are still running.
 */
export const fileLocks = new KeyedLock();

/**
 * Runs `critical` holding the lock of the file at real path `real`. Keys are case-folded, so two
 * spellings of one file on a case-insensitive file system share a lock.
 */
export function withFileLock<T>(real: string, critical: () => Promise<T>): Promise<T> {
  return fileLocks.run(foldPath(real), critical);
}
