import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Writes `file` whole or not at all (a temp file renamed over it); makes its folder when missing.
 * Synchronous: through `fs/promises` each write was four round trips to the thread pool (open,
 * write, close, rename) costing more CPU than the write itself.
 */
export function writeAtomic(file: string, data: string): void {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, data);
  } catch (error) {
    // The folder is there but for the first write: a mkdir per write was 300 syscalls a cold start.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, data);
  }
  renameSync(temp, file);
}

/**
 * How long the cache's writes wait after the last one came, ms: a start of 100 plugins makes one
 * every ≈ 15 ms, so they are written once it is over.
 */
export const QUIET_MS = 250;

/**
 * The longest writes wait while more keep coming, ms: a start of 1,000 plugins (≈ 20 s) writes
 * every 2 s, so a process killed during it (a signal, V8's abort, whose restart the serve
 * supervisor makes) loses at most that much of its cache. A start of 100 plugins ends sooner.
 */
export const MAX_WAIT_MS = 2_000;

/** Files written in one turn of the event loop while draining, so no turn is held long. */
export const FILES_PER_TURN = 16;

interface Waiting {
  readonly data: string;
  /** The folder that must still be there for the write to be made (the project's root). */
  readonly root: string;
}

/**
 * The bundle and manifest caches' writes, made behind the work that produced them. A cold start
 * of 100 plugins creates 300 files (a bundle, its index and its manifest each), and on this
 * machine's ext4 each new file cost ≈ 0.4 ms of kernel time on the host's main thread while the
 * start's two cores were busy with esbuild and the describe isolates: 100–140 ms of system time
 * (against 10–20 with the cache off). Now they wait until the writes stop for {@link QUIET_MS},
 * and are then written a few per turn: cold start median 1,435 against 1,508 ms (6 interleaved
 * pairs of `bench/scale-phase.mjs start`, 100 plugins).
 *
 * Nothing is read stale: a read of a file still waiting (`read`) gets what waits. Closing the
 * host writes everything at once (`flush`), and so does the process's `exit` (a CLI command that
 * ends with `process.exit()`, an uncaught exception). Writes never wait longer than
 * {@link MAX_WAIT_MS}: a process killed meanwhile (a signal, an abort: no `exit`) loses at most
 * that much of its cache, which its next start builds and describes again. A write whose
 * project is gone meanwhile is dropped, never made (it would make the folders again). The
 * plugins' quarantine records are not written here: they must be on disk before the host goes on.
 */
export class CacheWrites {
  readonly #pending = new Map<string, Waiting>();
  #timer: NodeJS.Timeout | undefined;
  /** When the oldest write now waiting came (`performance.now()`). */
  #since = 0;
  #draining = false;
  #onExit: (() => void) | undefined;
  #waiters: (() => void)[] = [];
  readonly #quietMs: number;
  readonly #maxWaitMs: number;

  constructor(quietMs: number = QUIET_MS, maxWaitMs: number = MAX_WAIT_MS) {
    this.#quietMs = quietMs;
    this.#maxWaitMs = maxWaitMs;
  }

  /**
   * Queues `data` for `file` (a later write of the same file replaces it), to be written while
   * `root` (the project's folder, above the cache) is still there.
   */
  write(file: string, data: string, root: string): void {
    this.#pending.delete(file);
    this.#pending.set(file, { data, root });
    if (this.#onExit === undefined) {
      this.#onExit = () => this.flush();
      process.once('exit', this.#onExit);
    }
    if (this.#draining) return;
    if (this.#timer === undefined) {
      this.#since = performance.now();
      this.#timer = setTimeout(() => this.#drain(), this.#quietMs);
      // A process with nothing else to do exits; its `exit` writes what waits.
      this.#timer.unref();
    } else if (performance.now() - this.#since + this.#quietMs <= this.#maxWaitMs) {
      this.#timer.refresh();
    }
  }

  /** What waits to be written to `file`, if anything. */
  read(file: string): string | undefined {
    return this.#pending.get(file)?.data;
  }

  /** How many files wait. */
  get size(): number {
    return this.#pending.size;
  }

  /** Writes everything that waits, now. A file that cannot be written is dropped: it is a cache. */
  flush(): void {
    this.#stopTimer();
    for (const file of [...this.#pending.keys()]) this.#writeOne(file);
    this.#settle();
  }

  /** Resolves once nothing waits (for tests and benchmarks: the next write makes it wait again). */
  drained(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #drain(): void {
    this.#timer = undefined;
    this.#draining = true;
    let written = 0;
    for (const file of this.#pending.keys()) {
      if (written++ === FILES_PER_TURN) break;
      this.#writeOne(file);
    }
    if (this.#pending.size > 0) {
      setImmediate(() => this.#drain());
      return;
    }
    this.#draining = false;
    this.#settle();
  }

  #writeOne(file: string): void {
    const waiting = this.#pending.get(file);
    this.#pending.delete(file);
    if (waiting === undefined || !existsSync(waiting.root)) return;
    try {
      writeAtomic(file, waiting.data);
    } catch {
      // A read-only or full disk only costs a rebuild or a describe next time.
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #settle(): void {
    if (this.#pending.size > 0) return;
    if (this.#onExit !== undefined) process.removeListener('exit', this.#onExit);
    this.#onExit = undefined;
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}

/** The project folder of a cache folder, `<root>/.toolhost/cache`. */
export function projectOf(cacheDir: string): string {
  return path.dirname(path.dirname(cacheDir));
}

/** The process's cache writes: every host's bundle and manifest caches queue here. */
export const cacheWrites = new CacheWrites();

/** The text of `file`: what waits to be written to it, or what the disk holds. Throws when neither. */
export function readText(file: string): string {
  return cacheWrites.read(file) ?? readFileSync(file, 'utf8');
}

/**
 * The JSON in `file` (or waiting to be written to it), or undefined. Read synchronously: the
 * cache's files are small and local, and at 100 plugins the thread pool's round trips (open,
 * stat, read, close) cost a warm start more than the reads themselves.
 */
export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readText(file)) as T;
  } catch {
    return undefined;
  }
}
