import { Worker } from 'node:worker_threads';
import { builtEntry } from '../../util/package.js';
import { type FromWorker, IDLE, type MatchThreadData } from './grep-protocol.js';

/** A matching thread, and the shared slot in which it says which file it is matching. */
export interface MatchThread {
  readonly worker: Worker;
  /** Slot 0: the id of the file being matched, or IDLE. Written by the thread, read by the search. */
  readonly progress: Int32Array;
  readonly memoryMb: number;
}

/** An idle thread is ended after this long unused. */
const IDLE_MS = 30_000;

let idle: { readonly thread: MatchThread; readonly timer: NodeJS.Timeout } | undefined;

const workerEntry = () => builtEntry('sources/builtin/grep-worker.js');

/** The idle thread if it has the heap size asked for, or a new one. */
export function takeThread(memoryMb: number): MatchThread {
  const kept = idle;
  idle = undefined;
  if (kept !== undefined) {
    clearTimeout(kept.timer);
    if (kept.thread.memoryMb === memoryMb) {
      kept.thread.worker.ref();
      return kept.thread;
    }
    kept.thread.worker.terminate().catch(() => {});
  }
  const progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  progress[0] = IDLE;
  const workerData: MatchThreadData = { progress };
  const worker = new Worker(workerEntry(), {
    workerData,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
  });
  const thread: MatchThread = { worker, progress, memoryMb };
  // A search's own listeners come and go; an 'error' event must never find none (it would be thrown).
  worker.on('error', () => {});
  worker.on('exit', () => {
    if (idle?.thread !== thread) return;
    clearTimeout(idle.timer);
    idle = undefined;
  });
  return thread;
}

/** Keeps a healthy thread for the next search (one at most), or ends it. */
export function releaseThread(thread: MatchThread): void {
  if (idle !== undefined) {
    thread.worker.terminate().catch(() => {});
    return;
  }
  thread.worker.unref();
  const timer = setTimeout(() => {
    if (idle?.thread !== thread) return;
    idle = undefined;
    thread.worker.terminate().catch(() => {});
  }, IDLE_MS);
  timer.unref();
  idle = { thread, timer };
}

/** Hands a search the thread's replies and its loss (an error, or an exit); returns the detach. */
export function listen(
  thread: MatchThread,
  on: { readonly message: (message: FromWorker) => void; readonly lost: (error: Error) => void },
): () => void {
  const { worker } = thread;
  const onExit = (code: number) => on.lost(new Error(`it exited with code ${code}`));
  worker.on('message', on.message);
  worker.on('error', on.lost);
  worker.on('exit', onExit);
  return () => {
    worker.off('message', on.message);
    worker.off('error', on.lost);
    worker.off('exit', onExit);
  };
}
