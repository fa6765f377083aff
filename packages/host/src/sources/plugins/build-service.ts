import { Worker } from 'node:worker_threads';
import { messageOf } from '../../util/errors.js';
import { builtEntry } from '../../util/package.js';
import type { BundleOutcome } from './build-context.js';
import type { BuildJob, BuildWorkerData, FromBuildWorker, ToBuildWorker } from './build-ipc.js';
import { timeLimitMessage } from './build-limits.js';
import { sharedExports } from './shared-modules.js';

/** The build worker entry (always the built copy in dist). */
const buildWorkerEntry = () => builtEntry('sources/plugins/build-worker.js');

/** How many times a build interrupted by a fault of the worker is sent again before it fails. */
const MAX_RETRIES = 2;

/**
 * How long a worker with nothing to do (no build in flight, no incremental context) lives on:
 * its esbuild service keeps the memory of the builds it ran (≈ 17–30 MB for each build that ran
 * at once), so a host that is done loading gives it back.
 */
const DEFAULT_IDLE_MS = 10_000;

interface Pending {
  readonly key: number;
  readonly job: BuildJob;
  readonly resolve: (outcome: BundleOutcome) => void;
  /**
   * The build's own deadline, counted from when it is first sent to a worker (not from this
   * thread's wait for what workers start with): a retry does not extend it.
   */
  timer?: NodeJS.Timeout;
  retries: number;
  /** The worker it was last sent to. */
  worker?: Worker;
}

const failure = (error: string): BundleOutcome => ({ ok: false, error, inputs: [] });

/**
 * Runs plugin builds in a worker thread and enforces their time limit. A timer cannot stop
 * esbuild from inside: a build can be stuck in work that no plugin callback sees (a computed
 * `import()` over `../../../..` makes esbuild list every folder of the disk before loading
 * anything), and cancelling waits for that work to end. Ending the worker ends its esbuild service
 * too, so a build that runs out of time fails at its deadline and its worker is retired: new
 * builds go to a new worker, and the builds of other plugins already running in the old one finish
 * there (each within its own deadline) before it is ended. Only a worker that dies on its own
 * makes the builds in flight there start again in a new one.
 */
export class BuildService {
  readonly #entry: string;
  readonly #idleMs: number;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  /** Workers that no new build goes to; each is ended once its last build in flight settles. */
  readonly #retired = new Set<Worker>();
  /** Keys of the incremental contexts the current worker holds. */
  readonly #contexts = new Set<number>();
  #idle: NodeJS.Timeout | undefined;
  #restarts = 0;
  /** What every worker starts with, found once in this thread before the first build is sent. */
  #data: BuildWorkerData | undefined;
  #dataFound: Promise<BuildWorkerData> | undefined;

  /** `entry`: the worker script; tests give one that misbehaves. */
  constructor(entry: string = buildWorkerEntry(), { idleMs = DEFAULT_IDLE_MS }: { idleMs?: number } = {}) {
    this.#entry = entry;
    this.#idleMs = idleMs;
  }

  /** How many times the worker was replaced after a build ran out of time. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Whether a worker (and its esbuild service) is running now. */
  get running(): boolean {
    return this.#worker !== undefined || this.#retired.size > 0;
  }

  /** Builds `job` in the context named `key` (created on first use). Never throws. */
  build(key: number, job: BuildJob): Promise<BundleOutcome> {
    return new Promise((resolve) => {
      const id = this.#nextId++;
      const pending: Pending = { key, job, resolve, retries: 0 };
      this.#pending.set(id, pending);
      if (!job.once) this.#contexts.add(key);
      this.#whenStartable(() => {
        // Settled meanwhile (closed): nothing to send.
        if (this.#pending.get(id) !== pending) return;
        pending.timer = setTimeout(() => this.#timedOut(id), job.limits.timeoutMs);
        try {
          this.#send(id);
        } catch (error) {
          // Sent later than asked, a throw here would reject nothing the caller holds.
          this.#settle(id, failure(`the build could not be sent to the build worker: ${messageOf(error)}`));
        }
      });
    });
  }

  /** Drops the context named `key`. */
  dispose(key: number): void {
    if (!this.#contexts.delete(key)) return;
    // After the builds asked before it, whose contexts it may drop.
    this.#whenStartable(() => this.#worker?.postMessage({ t: 'dispose', key } satisfies ToBuildWorker));
    this.#idleCheck();
  }

  /**
   * Runs `then` once a worker can be started: at once after the first time; before it, once this
   * thread has the shared modules' export names the worker is given (shared-modules.ts), in the
   * order asked. Without them (an import failed) the worker finds them itself.
   */
  #whenStartable(then: () => void): void {
    if (this.#data !== undefined) {
      then();
      return;
    }
    this.#dataFound ??= sharedExports().then(
      (names): BuildWorkerData => ({ sharedExports: names }),
      (): BuildWorkerData => ({}),
    );
    void this.#dataFound.then((data) => {
      this.#data = data;
      then();
    });
  }

  /** Ends the workers; builds in flight fail. */
  async close(): Promise<void> {
    const workers = [...this.#retired, ...(this.#worker === undefined ? [] : [this.#worker])];
    this.#worker = undefined;
    this.#retired.clear();
    this.#contexts.clear();
    clearTimeout(this.#idle);
    for (const id of [...this.#pending.keys()]) this.#settle(id, failure('the build service was closed'));
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #send(id: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    clearTimeout(this.#idle);
    const worker = this.#ensureWorker();
    worker.ref();
    pending.worker = worker;
    worker.postMessage({ t: 'build', id, key: pending.key, ...pending.job } satisfies ToBuildWorker);
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    // Not the host's flags (`--input-type`, `--eval`… would stop the worker from starting).
    const worker = new Worker(this.#entry, { execArgv: [], workerData: this.#data });
    this.#worker = worker;
    worker.on('message', (message: FromBuildWorker) => {
      if (message.t === 'built' && this.#pending.get(message.id)?.worker === worker)
        this.#settle(message.id, message.outcome);
    });
    worker.on('error', (error) => this.#lost(worker, `the build worker failed: ${error.message}`));
    worker.on('exit', () => this.#lost(worker, 'the build worker stopped'));
    return worker;
  }

  #settle(id: number, outcome: BundleOutcome): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    this.#pending.delete(id);
    const worker = pending.worker;
    if (worker !== undefined && !this.#busy(worker)) {
      // A retired worker whose last build ended goes now; an idle one must not keep the host alive.
      if (this.#retired.delete(worker)) void worker.terminate();
      else worker.unref();
    }
    this.#idleCheck();
    pending.resolve(outcome);
  }

  #busy(worker: Worker): boolean {
    for (const pending of this.#pending.values()) if (pending.worker === worker) return true;
    return false;
  }

  /** With no build in flight and no context kept, the worker is ended after a while. */
  #idleCheck(): void {
    clearTimeout(this.#idle);
    if (this.#worker === undefined || this.#pending.size > 0 || this.#contexts.size > 0) return;
    this.#idle = setTimeout(() => {
      const worker = this.#worker;
      if (worker === undefined || this.#pending.size > 0 || this.#contexts.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, this.#idleMs);
    this.#idle.unref();
  }

  #timedOut(id: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    const worker = pending.worker;
    this.#settle(id, failure(timeLimitMessage(pending.job.limits)));
    if (worker === undefined || worker !== this.#worker) return;
    // The worker is stuck in that build: nothing new goes there. Its contexts are lost with it
    // (a context's next build creates it again in the new worker).
    this.#worker = undefined;
    this.#contexts.clear();
    this.#restarts += 1;
    if (this.#busy(worker)) this.#retired.add(worker);
    else void worker.terminate();
  }

  /** A worker died on its own (a fault in it): what was in flight there is sent again. */
  #lost(worker: Worker, why: string): void {
    if (worker === this.#worker) {
      this.#worker = undefined;
      this.#contexts.clear();
    } else if (!this.#retired.delete(worker)) return;
    for (const [id, pending] of this.#pending) {
      if (pending.worker !== worker) continue;
      if (pending.retries >= MAX_RETRIES) {
        this.#settle(id, failure(`the build was interrupted ${pending.retries + 1} times: ${why}`));
        continue;
      }
      pending.retries += 1;
      this.#send(id);
    }
  }
}

let shared: BuildService | undefined;

/** The build service every plugin build of this process goes through. */
export function sharedBuildService(): BuildService {
  shared ??= new BuildService();
  return shared;
}
