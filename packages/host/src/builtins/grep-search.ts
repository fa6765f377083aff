/**
 * grep's search: the host's main thread reads files (asynchronously, as before) and hands their bytes
 * to a worker thread that runs the pattern. The main thread never compiles or runs the model's
 * pattern, so a pattern that backtracks for minutes stalls nothing but its own worker.
 *
 * Bounds, each with its own message in the outcome:
 * - a file that takes longer than `fileBudgetMs` to match: the worker is terminated and the file is
 *   retried with the linear-time engine (RE2 semantics, see grep-linear.ts), which then matches the
 *   rest of the search; a file neither engine finishes in time is skipped and named;
 * - the whole search: after `budgetMs` it stops and returns what it found;
 * - results: `maxResults` lines;
 * - memory: at most a few files' bytes are in flight to the worker at once.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Engine, FromWorker, LineHit, ToWorker } from './grep-protocol.js';

/** One file to search: its workspace-relative path and its bytes. */
export interface SearchFile {
  readonly rel: string;
  readonly data: Uint8Array;
}

/** A matching line and the file it is in. */
export interface FileHit extends LineHit {
  readonly rel: string;
}

export interface SearchRequest {
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly maxResults: number;
  /** Wall-clock budget of the whole search, ms. */
  readonly budgetMs: number;
  /** Longest one file may take to match, ms, before it is retried with the linear-time engine or skipped. */
  readonly fileBudgetMs: number;
  /** Largest file that will be sent, bytes (sizes the worker's heap). */
  readonly maxFileBytes: number;
  readonly signal: AbortSignal;
  /** The engine to start with. Default `native`; `linear` is for tests and benchmarks. */
  readonly engine?: Engine;
}

export interface SearchOutcome {
  /** In file order, then line order. */
  readonly hits: readonly FileHit[];
  /** More lines matched than `maxResults`; the search stopped there. */
  readonly capped: boolean;
  /** The time budget ran out before every file was searched. */
  readonly outOfTime: boolean;
  /** Files whose every line was tested. */
  readonly searchedFiles: number;
  /** Files skipped because no engine matched them within `fileBudgetMs`. */
  readonly tooSlow: readonly string[];
  /** The file from which on the linear-time engine matched, if the search switched to it. */
  readonly linearFrom: string | undefined;
  /** Why the linear-time engine could not take over, if it could not. */
  readonly linearRefused: string | undefined;
}

/** Files and bytes sent to the worker and not yet answered, at most (one file is always allowed). */
const MAX_IN_FLIGHT_FILES = 16;
const MAX_IN_FLIGHT_BYTES = 4 * 1024 * 1024;

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
  #worker: Worker | undefined;
  #detach: (() => void) | undefined;
  /**
   * The current worker has compiled the pattern. Files are posted to it before that (it handles
   * messages in order), but the per-file watchdog only starts once compiling is over.
   */
  #ready = false;
  /** The search has returned; the worker finishes the files it was sent, then goes back to the pool. */
  #draining = false;
  readonly #inFlight: InFlight[] = [];
  #inFlightBytes = 0;
  #nextId = 0;
  readonly #hits: FileHit[] = [];
  #capped = false;
  #searched = 0;
  readonly #tooSlow: string[] = [];
  #stop: Stop | undefined;
  #failure: Error | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  readonly #stopped: Promise<undefined>;
  #resolveStopped: ((value: undefined) => void) | undefined;

  constructor(request: SearchRequest) {
    this.#request = request;
    this.#engine = request.engine ?? 'native';
    // The worker holds one file's text and its lines; leave generous room, and bound it.
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
      this.#startWorker();
      while (this.#stop === undefined) {
        if (!this.#hasRoom()) {
          await this.#changed();
          continue;
        }
        // Raced with the stop, so the budget holds even while a read is slow.
        const next = await Promise.race([iterator.next(), this.#stopped]);
        if (next === undefined || next.done === true) break;
        this.#send(next.value);
      }
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
    // A capped search lets its worker finish what it was sent (see #finish); otherwise it is not needed.
    if (stop !== 'capped') this.#dropWorker();
    this.#resolveStopped?.(undefined);
    this.#notify();
  }

  #send(file: SearchFile): void {
    const item: InFlight = { id: this.#nextId++, rel: file.rel, data: file.data };
    this.#inFlight.push(item);
    this.#inFlightBytes += file.data.byteLength;
    if (this.#worker === undefined) return;
    this.#post(item);
    if (this.#ready && this.#inFlight.length === 1) this.#armWatchdog();
  }

  #post(item: InFlight): void {
    // A copy is sent (and moved, not cloned, to the worker): the original stays here in case the file
    // must be sent again to a new worker.
    const copy = new Uint8Array(item.data.byteLength);
    copy.set(item.data);
    const message: ToWorker = { kind: 'match', id: item.id, data: copy };
    this.#worker?.postMessage(message, [copy.buffer]);
  }

  #startWorker(): void {
    const { pattern, ignoreCase, maxResults } = this.#request;
    let worker: Worker;
    try {
      worker = takeWorker(this.#memoryMb);
    } catch (error) {
      // Also called from timer callbacks: a thread that cannot start fails this search, not the host.
      this.#halt(
        'failed',
        new Error(`grep could not start its matching thread: ${(error as Error).message}`),
      );
      return;
    }
    const onMessage = (message: FromWorker) => this.#onMessage(worker, message);
    const onError = (error: Error) => this.#onWorkerLost(worker, error);
    const onExit = (code: number) => this.#onWorkerLost(worker, new Error(`it exited with code ${code}`));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    this.#worker = worker;
    this.#ready = false;
    this.#detach = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    // One hit more than the cap per file, so the search can tell that the cap cut something off.
    const message: ToWorker = {
      kind: 'compile',
      engine: this.#engine,
      pattern,
      ignoreCase,
      limit: maxResults + 1,
    };
    worker.postMessage(message);
    for (const item of this.#inFlight) this.#post(item);
  }

  #dropWorker(): void {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#detach?.();
    this.#worker = undefined;
    this.#ready = false;
    worker.terminate().catch(() => {});
  }

  #onMessage(worker: Worker, message: FromWorker): void {
    if (worker !== this.#worker) return;
    switch (message.kind) {
      case 'compiled':
        this.#ready = true;
        if (this.#inFlight.length > 0) this.#armWatchdog();
        this.#notify();
        return;
      case 'rejected':
        this.#onRejected(message.reason, message.message);
        return;
      case 'matched':
      case 'failed': {
        const item = this.#inFlight.shift();
        if (item === undefined || item.id !== message.id) {
          this.#halt('failed', new Error('grep: the matching thread answered out of order'));
          return;
        }
        this.#inFlightBytes -= item.data.byteLength;
        if (message.kind === 'failed') {
          this.#halt('failed', new Error(`grep could not match ${item.rel}: ${message.message}`));
          if (this.#draining) this.#dropWorker();
          return;
        }
        this.#searched++;
        if (this.#stop === undefined) this.#collect(item.rel, message.hits);
        if (this.#inFlight.length > 0) this.#armWatchdog();
        else if (this.#draining) this.#release();
        this.#notify();
        return;
      }
    }
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
    const tookOver = this.#engine === 'linear' && this.#request.engine !== 'linear';
    if (reason === 'unsupported' && tookOver) {
      // Linear could not take over: back to native, without the file that was too slow for it.
      this.#linearRefused = message;
      this.#linearFrom = undefined;
      this.#engine = 'native';
      this.#dropWorker();
      this.#skipHead();
      this.#startWorker();
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

  #armWatchdog(): void {
    if (this.#watchdog === undefined) {
      this.#watchdog = setTimeout(() => this.#onWatchdog(), this.#request.fileBudgetMs);
    } else {
      this.#watchdog.refresh();
    }
  }

  /** The head file has been matching for `fileBudgetMs` (if the worker is still on it). */
  #onWatchdog(): void {
    if (this.#worker === undefined || !this.#ready || this.#inFlight.length === 0) return;
    if (this.#draining) {
      this.#dropWorker();
      return;
    }
    const head = this.#inFlight[0];
    this.#dropWorker();
    if (this.#engine === 'native' && this.#linearRefused === undefined) {
      this.#engine = 'linear';
      this.#linearFrom = head?.rel;
    } else {
      this.#skipHead();
    }
    this.#startWorker();
  }

  #skipHead(): void {
    const head = this.#inFlight.shift();
    if (head === undefined) return;
    this.#inFlightBytes -= head.data.byteLength;
    this.#tooSlow.push(head.rel);
    this.#notify();
  }

  #onWorkerLost(worker: Worker, error: Error): void {
    if (worker !== this.#worker) return;
    this.#dropWorker();
    if (this.#draining) return;
    const head = this.#inFlight[0];
    const where = head === undefined ? '' : ` while matching ${head.rel}`;
    this.#halt('failed', new Error(`grep's matching thread stopped${where}: ${error.message}`));
  }

  /** After the search: keep a healthy worker for the next one, or end it. */
  #finish(): void {
    const reusable = this.#stop === undefined || this.#stop === 'capped';
    if (this.#worker === undefined || !reusable || !this.#ready) {
      this.#dropWorker();
      clearTimeout(this.#watchdog);
      return;
    }
    if (this.#inFlight.length === 0) {
      this.#release();
      return;
    }
    this.#draining = true;
    // The watchdog still ends a worker that stalls while draining, but need not keep the process up.
    this.#watchdog?.unref();
  }

  #release(): void {
    const worker = this.#worker;
    clearTimeout(this.#watchdog);
    if (worker === undefined) return;
    this.#detach?.();
    this.#worker = undefined;
    releaseWorker(worker, this.#memoryMb);
  }
}

// ---- the worker pool: one idle worker kept warm, since starting one takes tens of milliseconds ----

/** An idle worker is ended after this long unused. */
const IDLE_MS = 30_000;

let idle: { readonly worker: Worker; readonly memoryMb: number; readonly timer: NodeJS.Timeout } | undefined;

function workerEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? path.resolve(path.dirname(here), '../../dist/builtins/grep-worker.js')
    : path.join(path.dirname(here), 'grep-worker.js');
}

function takeWorker(memoryMb: number): Worker {
  const kept = idle;
  idle = undefined;
  if (kept !== undefined) {
    clearTimeout(kept.timer);
    if (kept.memoryMb === memoryMb) {
      kept.worker.ref();
      return kept.worker;
    }
    kept.worker.terminate().catch(() => {});
  }
  const worker = new Worker(workerEntry(), { resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
  // A search's own listeners come and go; an 'error' event must never find none (it would be thrown).
  worker.on('error', () => {});
  worker.on('exit', () => {
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  });
  return worker;
}

function releaseWorker(worker: Worker, memoryMb: number): void {
  if (idle !== undefined) {
    worker.terminate().catch(() => {});
    return;
  }
  worker.unref();
  const timer = setTimeout(() => {
    if (idle?.worker !== worker) return;
    idle = undefined;
    worker.terminate().catch(() => {});
  }, IDLE_MS);
  timer.unref();
  idle = { worker, memoryMb, timer };
}
