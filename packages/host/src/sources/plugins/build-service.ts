import { Worker } from 'node:worker_threads';
import { builtEntry } from '../../util/package.js';
import type { BundleOutcome } from './build-context.js';
import type { BuildJob, FromBuildWorker, ToBuildWorker } from './build-ipc.js';
import { timeLimitMessage } from './build-limits.js';

/** The build worker entry (always the built copy in dist). */
const buildWorkerEntry = () => builtEntry('sources/plugins/build-worker.js');

/** How many times a build interrupted by a restart of the worker is sent again before it fails. */
const MAX_RETRIES = 2;

interface Pending {
  readonly key: number;
  readonly job: BuildJob;
  readonly resolve: (outcome: BundleOutcome) => void;
  /** The build's own deadline, counted from the first request: a retry does not extend it. */
  readonly timer: NodeJS.Timeout;
  retries: number;
}

const failure = (error: string): BundleOutcome => ({ ok: false, error, inputs: [] });

/**
 * Runs plugin builds in a worker thread and enforces their time limit. A timer cannot stop
 * esbuild from inside: a build can be stuck in work that no plugin callback sees (a computed
 * `import()` over `../../../..` makes esbuild list every folder of the disk before loading
 * anything), and cancelling waits for that work to end. Ending the worker ends its esbuild service
 * too, so a build that runs out of time fails at its deadline and the worker is replaced; builds
 * of other plugins that were in flight there are sent again to the new one.
 */
export class BuildService {
  readonly #entry: string;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #restarts = 0;

  /** `entry`: the worker script; tests give one that misbehaves. */
  constructor(entry: string = buildWorkerEntry()) {
    this.#entry = entry;
  }

  /** How many times the worker was replaced after a build ran out of time. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Builds `job` in the context named `key` (created on first use). Never throws. */
  build(key: number, job: BuildJob): Promise<BundleOutcome> {
    return new Promise((resolve) => {
      const id = this.#nextId++;
      const timer = setTimeout(() => this.#timedOut(id), job.limits.timeoutMs);
      this.#pending.set(id, { key, job, resolve, timer, retries: 0 });
      this.#send(id);
    });
  }

  /** Drops the context named `key`. */
  dispose(key: number): void {
    this.#worker?.postMessage({ t: 'dispose', key } satisfies ToBuildWorker);
  }

  /** Ends the worker; builds in flight fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    for (const id of [...this.#pending.keys()]) this.#settle(id, failure('the build service was closed'));
    await worker?.terminate();
  }

  #send(id: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    const worker = this.#ensureWorker();
    worker.ref();
    worker.postMessage({ t: 'build', id, key: pending.key, ...pending.job } satisfies ToBuildWorker);
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    // Not the host's flags (`--input-type`, `--eval`… would stop the worker from starting).
    const worker = new Worker(this.#entry, { execArgv: [] });
    this.#worker = worker;
    worker.on('message', (message: FromBuildWorker) => {
      if (worker === this.#worker && message.t === 'built') this.#settle(message.id, message.outcome);
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
    // An idle worker must not keep the host process alive.
    if (this.#pending.size === 0) this.#worker?.unref();
    pending.resolve(outcome);
  }

  #timedOut(id: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#settle(id, failure(timeLimitMessage(pending.job.limits)));
    const worker = this.#worker;
    this.#worker = undefined;
    this.#restarts += 1;
    void worker?.terminate();
    this.#resend('another plugin build ran out of time');
  }

  /** The worker died on its own (a fault in it): what was in flight there is sent again. */
  #lost(worker: Worker, why: string): void {
    if (worker !== this.#worker) return;
    this.#worker = undefined;
    this.#resend(why);
  }

  #resend(why: string): void {
    for (const [id, pending] of this.#pending) {
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
