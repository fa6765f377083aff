/**
 * grep's search: the host's main thread reads files (asynchronously, as before) and hands their bytes
 * to a worker thread that runs the pattern. The main thread never compiles or runs the model's
 * pattern, so a pattern that backtracks for minutes stalls nothing but its own worker.
 *
 * Bounds, each with its own message in the outcome:
 * - a file that takes longer than `fileBudgetMs` to match (seen still on it twice, `fileBudgetMs`
 *   apart, through a slot the worker writes): the worker is terminated and the file is retried with
 *   the linear-time engine (JavaScript's meaning, RE2's guarantee, see grep-linear.ts), which then
 *   matches the rest of the search; a file neither engine finishes in time is skipped and named;
 * - the whole search: after `budgetMs` it stops and returns what it found;
 * - results: `maxResults` lines;
 * - memory: at most a few files' bytes are in flight to the worker at once.
 * Files go to the worker in batches, and the worker's pool keeps one warm between searches
 * (grep-pool.ts): on a large tree, thread hand-offs then cost about nothing next to reading.
 */
import { listen, type MatchThread, releaseThread, takeThread } from './grep-pool.js';
import {
  type Engine,
  type FileHit,
  type FileMatched,
  type FileToMatch,
  type FromWorker,
  IDLE,
  type LineHit,
  type SearchFile,
  type SearchOutcome,
  type SearchRequest,
  type ToWorker,
} from './grep-protocol.js';

/** Files and bytes sent to the worker and not yet answered, at most (one file is always allowed). */
const MAX_IN_FLIGHT_FILES = 32;
const MAX_IN_FLIGHT_BYTES = 4 * 1024 * 1024;
/**
 * Files are posted in batches of about this many files or bytes: each message wakes a sleeping
 * thread, and on a large tree those wake-ups cost more than the matching.
 */
const BATCH_FILES = 8;
const BATCH_BYTES = 512 * 1024;

export type { FileHit, SearchFile, SearchOutcome, SearchRequest } from './grep-protocol.js';

/** Searches `files` in order. Rejects for an invalid pattern, a broken worker, or an abort. */
export function searchFiles(
  files: AsyncIterable<SearchFile>,
  request: SearchRequest,
): Promise<SearchOutcome> {
  return new Search(request).run(files);
}

interface InFlight {
  readonly id: number;
  readonly rel: string;
  readonly data: Uint8Array;
}

type Stop = 'capped' | 'out-of-time' | 'aborted' | 'failed';

class Search {
  readonly #request: SearchRequest;
  readonly #memoryMb: number;
  #engine: Engine;
  #linearFrom: string | undefined;
  #linearRefused: string | undefined;
  /** The file the linear engine was started for, until it has compiled. */
  #retrying: number | undefined;
  #thread: MatchThread | undefined;
  #detach: (() => void) | undefined;
  /** The current thread has compiled the pattern (files may be posted before that: it handles messages in order). */
  #ready = false;
  /** The search has returned; the thread finishes the files it was sent, then goes back to the pool. */
  #draining = false;
  /** Files read and not yet answered, in order; the first `#posted` of them went to the current thread. */
  readonly #inFlight: InFlight[] = [];
  #posted = 0;
  #inFlightBytes = 0;
  #unpostedBytes = 0;
  #nextId = 0;
  readonly #hits: FileHit[] = [];
  #capped = false;
  #searched = 0;
  readonly #tooSlow: string[] = [];
  #stop: Stop | undefined;
  #failure: Error | undefined;
  /** Checks, every `fileBudgetMs`, which file the thread is on. */
  #watchdog: NodeJS.Timeout | undefined;
  #lastSeen = IDLE;
  #wake: (() => void) | undefined;
  readonly #stopped: Promise<undefined>;
  #resolveStopped: ((value: undefined) => void) | undefined;

  constructor(request: SearchRequest) {
    this.#request = request;
    this.#engine = request.engine ?? 'native';
    // The thread holds a batch of files, one file's text and its lines; leave generous room, and bound it.
    this.#memoryMb = Math.max(64, Math.ceil((8 * request.maxFileBytes) / 2 ** 20) + 32);
    this.#stopped = new Promise((resolve) => {
      this.#resolveStopped = resolve;
    });
  }

  async run(files: AsyncIterable<SearchFile>): Promise<SearchOutcome> {
    const { signal, budgetMs } = this.#request;
    signal.throwIfAborted();
    const budget = setTimeout(() => this.#halt('out-of-time'), budgetMs);
    const onAbort = () => this.#halt('aborted');
    signal.addEventListener('abort', onAbort);
    const iterator = files[Symbol.asyncIterator]();
    try {
      this.#startThread();
      while (this.#stop === undefined) {
        if (!this.#hasRoom()) {
          this.#flush();
          await this.#changed();
          continue;
        }
        // Raced with the stop, so the budget holds even while a read is slow.
        const next = await Promise.race([iterator.next(), this.#stopped]);
        if (next === undefined || next.done === true) break;
        this.#send(next.value);
      }
      this.#flush();
      while (this.#stop === undefined && (this.#inFlight.length > 0 || !this.#ready)) await this.#changed();
    } catch (error) {
      this.#failure ??= error as Error;
      this.#stop = 'failed';
    } finally {
      clearTimeout(budget);
      signal.removeEventListener('abort', onAbort);
      // Closes the walk (and any open file) once a read still under way ends.
      iterator.return?.().catch(() => {});
      this.#finish();
    }
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#stop === 'aborted') throw signal.reason;
    return {
      hits: this.#hits,
      capped: this.#capped,
      outOfTime: this.#stop === 'out-of-time',
      searchedFiles: this.#searched,
      tooSlow: this.#tooSlow,
      linearFrom: this.#linearFrom,
      linearRefused: this.#linearRefused,
    };
  }

  #hasRoom(): boolean {
    return (
      this.#inFlight.length === 0 ||
      (this.#inFlight.length < MAX_IN_FLIGHT_FILES && this.#inFlightBytes < MAX_IN_FLIGHT_BYTES)
    );
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #halt(stop: Stop, failure?: Error): void {
    if (this.#stop !== undefined) return;
    this.#stop = stop;
    this.#failure = failure;
    // A capped search lets its thread finish what it was sent (see #finish); otherwise it is not needed.
    if (stop !== 'capped') this.#dropThread();
    this.#resolveStopped?.(undefined);
    this.#notify();
  }

  #send(file: SearchFile): void {
    this.#inFlight.push({ id: this.#nextId++, rel: file.rel, data: file.data });
    this.#inFlightBytes += file.data.byteLength;
    this.#unpostedBytes += file.data.byteLength;
    if (this.#inFlight.length - this.#posted >= BATCH_FILES || this.#unpostedBytes >= BATCH_BYTES)
      this.#flush();
  }

  /** Posts the files read since the last batch to the current thread. */
  #flush(): void {
    const thread = this.#thread;
    if (thread === undefined || this.#stop !== undefined || this.#posted === this.#inFlight.length) return;
    const files: FileToMatch[] = [];
    const transfer: ArrayBuffer[] = [];
    for (let i = this.#posted; i < this.#inFlight.length; i++) {
      const item = this.#inFlight[i] as InFlight;
      // A copy, moved (not cloned) to the thread: the original stays here in case the file must be
      // sent again to a new thread.
      const copy = new Uint8Array(item.data.byteLength);
      copy.set(item.data);
      files.push({ id: item.id, data: copy });
      transfer.push(copy.buffer);
    }
    const message: ToWorker = { kind: 'match', files };
    thread.worker.postMessage(message, transfer);
    this.#posted = this.#inFlight.length;
    this.#unpostedBytes = 0;
    this.#watchdog ??= setInterval(() => this.#checkProgress(), this.#request.fileBudgetMs);
  }

  #startThread(): void {
    const { pattern, ignoreCase, maxResults } = this.#request;
    let thread: MatchThread;
    try {
      thread = takeThread(this.#memoryMb);
    } catch (error) {
      // Also called from timer callbacks: a thread that cannot start fails this search, not the host.
      this.#halt(
        'failed',
        new Error(`grep could not start its matching thread: ${(error as Error).message}`),
      );
      return;
    }
    this.#thread = thread;
    this.#ready = false;
    this.#lastSeen = IDLE;
    this.#detach = listen(thread, {
      message: (message) => this.#onMessage(thread, message),
      lost: (error) => this.#onThreadLost(thread, error),
    });
    // One hit more than the cap per file, so the search can tell that the cap cut something off.
    const message: ToWorker = {
      kind: 'compile',
      engine: this.#engine,
      pattern,
      ignoreCase,
      limit: maxResults + 1,
    };
    thread.worker.postMessage(message);
    this.#flush();
  }

  #dropThread(): void {
    const thread = this.#thread;
    if (thread === undefined) return;
    this.#detach?.();
    this.#thread = undefined;
    this.#ready = false;
    this.#posted = 0;
    this.#unpostedBytes = this.#inFlightBytes;
    thread.worker.terminate().catch(() => {});
    // After the search has returned, nothing will start another thread.
    if (this.#draining) clearInterval(this.#watchdog);
  }

  #onMessage(thread: MatchThread, message: FromWorker): void {
    if (thread !== this.#thread) return;
    switch (message.kind) {
      case 'compiled':
        this.#ready = true;
        this.#retrying = undefined;
        this.#notify();
        return;
      case 'rejected':
        this.#onRejected(message.reason, message.message);
        return;
      case 'matched':
        this.#onMatched(message.files);
        return;
      case 'failed': {
        this.#onMatched(message.matched);
        const rel = this.#inFlight.find((item) => item.id === message.id)?.rel ?? `file #${message.id}`;
        this.#halt('failed', new Error(`grep could not match ${rel}: ${message.message}`));
        this.#dropThread();
        return;
      }
    }
  }

  #onMatched(files: readonly FileMatched[]): void {
    for (const { id, hits } of files) {
      const item = this.#inFlight.shift();
      if (item === undefined || item.id !== id) {
        this.#halt('failed', new Error('grep: the matching thread answered out of order'));
        this.#dropThread();
        return;
      }
      this.#posted--;
      this.#inFlightBytes -= item.data.byteLength;
      this.#searched++;
      if (this.#stop === undefined) this.#collect(item.rel, hits);
    }
    if (this.#draining && this.#inFlight.length === 0) this.#release();
    this.#notify();
  }

  #collect(rel: string, hits: readonly LineHit[]): void {
    for (const { line, text } of hits) {
      if (this.#hits.length === this.#request.maxResults) {
        this.#capped = true;
        this.#halt('capped');
        return;
      }
      this.#hits.push({ rel, line, text });
    }
  }

  #onRejected(reason: 'invalid' | 'unsupported', message: string): void {
    const { pattern } = this.#request;
    const retrying = this.#retrying;
    if (reason === 'unsupported' && retrying !== undefined) {
      // Linear could not take over: back to native, without the file that was too slow for it.
      this.#linearRefused = message;
      this.#linearFrom = undefined;
      this.#retrying = undefined;
      this.#engine = 'native';
      this.#dropThread();
      this.#skip(retrying);
      this.#startThread();
      return;
    }
    const error =
      reason === 'invalid'
        ? new Error(
            `pattern ${JSON.stringify(pattern)} is not a valid JavaScript regular expression: ${message}`,
          )
        : new Error(`pattern ${JSON.stringify(pattern)} cannot run on the linear-time engine: ${message}`);
    this.#halt('failed', error);
  }

  /** A stall is the same file seen at two checks `fileBudgetMs` apart: it has run at least that long. */
  #checkProgress(): void {
    const thread = this.#thread;
    const current = thread === undefined ? IDLE : Atomics.load(thread.progress, 0);
    const stalled = current !== IDLE && current === this.#lastSeen;
    this.#lastSeen = current;
    if (!stalled) return;
    if (this.#draining) {
      this.#dropThread();
      return;
    }
    this.#dropThread();
    if (this.#engine === 'native' && this.#linearRefused === undefined) {
      this.#engine = 'linear';
      this.#linearFrom = this.#inFlight.find((item) => item.id === current)?.rel;
      this.#retrying = current;
    } else {
      this.#skip(current);
    }
    this.#startThread();
  }

  /** Gives up on file `id`: it is named in the outcome as too slow. */
  #skip(id: number): void {
    const index = this.#inFlight.findIndex((item) => item.id === id);
    const [item] = index === -1 ? [] : this.#inFlight.splice(index, 1);
    if (item === undefined) return;
    this.#inFlightBytes -= item.data.byteLength;
    this.#unpostedBytes -= item.data.byteLength;
    this.#tooSlow.push(item.rel);
    this.#notify();
  }

  #onThreadLost(thread: MatchThread, error: Error): void {
    if (thread !== this.#thread) return;
    const current = Atomics.load(thread.progress, 0);
    this.#dropThread();
    if (this.#draining) return;
    const rel = this.#inFlight.find((item) => item.id === current)?.rel;
    const where = rel === undefined ? '' : ` while matching ${rel}`;
    this.#halt('failed', new Error(`grep's matching thread stopped${where}: ${error.message}`));
  }

  /** After the search: keep a healthy thread for the next one, or end it. */
  #finish(): void {
    const reusable = this.#stop === undefined || this.#stop === 'capped';
    if (this.#thread === undefined || !reusable || !this.#ready) {
      this.#dropThread();
      clearInterval(this.#watchdog);
      return;
    }
    // Files read but never posted are dropped; those posted are drained before the thread is reused.
    this.#inFlight.length = this.#posted;
    if (this.#inFlight.length === 0) {
      this.#release();
      return;
    }
    this.#draining = true;
    // The watchdog still ends a thread that stalls while draining, but need not keep the process up.
    this.#watchdog?.unref();
  }

  #release(): void {
    const thread = this.#thread;
    clearInterval(this.#watchdog);
    if (thread === undefined) return;
    this.#detach?.();
    this.#thread = undefined;
    releaseThread(thread);
  }
}
