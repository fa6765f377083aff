import { PluginIsolate } from './plugin-isolate.js';
import type { Prelude } from './prelude.js';
import type { IsolateHandlers, SandboxLimits } from './types.js';

/** One isolate made ahead, and what it was made for. */
interface Spare {
  readonly prelude: Prelude;
  readonly limits: string;
  readonly isolate: Promise<PluginIsolate>;
}

/**
 * How long a spare no start has taken is kept, ms: a project that is done loading and editing
 * gives its memory back (≈ 4.5 MB).
 */
export const SPARE_IDLE_MS = 30_000;

/** Quiet time after a start before the next spare is made, ms. */
export const REFILL_AFTER_MS = 10;

/** The longest a refill waits between two looks while a call runs on with nothing else coming, ms. */
const MAX_REFILL_WAIT_MS = 1_000;

/** The calls of the process a spare is made in: how many came or ended so far, and how many run now. */
export interface CallLoad {
  readonly changes: number;
  readonly size: number;
}

const NO_CALLS: CallLoad = { changes: 0, size: 0 };

/**
 * An isolate made ahead for the next plugin start (a describe, or a version's first call): made
 * from the prelude, its context created and the bridge attached, with no plugin code in it. Most
 * of a start is that part (here: 6 ms for `new ivm.Isolate`, 3.4 ms for its context, 0.9 ms to
 * attach, against 6 ms to evaluate a 3-tool plugin; `node --no-node-snapshot
 * bench/isolate-prelude.mjs`), so a save in watch mode, which starts one isolate to describe the
 * plugin, waits for the plugin's own code only.
 *
 * A spare serves one start whose prelude and limits are those it was made with (the limits are
 * fixed when an isolate is made), then the next spare is made; a start it cannot serve makes its
 * own isolate, as without a spare. No plugin's code ever runs in a spare before it is given to that
 * plugin, and a spare is given once: it is the same as an isolate made at that moment.
 */
export class IsolateSpare {
  readonly #handlers: IsolateHandlers;
  readonly #idleMs: number;
  #spare: Spare | undefined;
  #idle: NodeJS.Timeout | undefined;
  #closed = false;
  /** A version was told (see `ahead`). */
  #toldAny = false;
  /** A start has asked for an isolate (see `ahead`). */
  #started = false;
  /** Starts served by a spare, and starts that made their own isolate (tests, benchmarks). */
  readonly counts = { served: 0, missed: 0 };

  readonly #calls: CallLoad;

  /** `calls` are the process's (`RunningCalls`): a spare waits for a quiet spell in them too. */
  constructor(handlers: IsolateHandlers, idleMs = SPARE_IDLE_MS, calls: CallLoad = NO_CALLS) {
    this.#handlers = handlers;
    this.#idleMs = idleMs;
    this.#calls = calls;
  }

  /**
   * An isolate ready for a bundle of `prelude` under `limits`: the spare when it fits, else a new
   * one. Either way a spare for the next start is then made, off this start's path.
   */
  async take(prelude: Prelude, limits: SandboxLimits): Promise<PluginIsolate> {
    this.#started = true;
    const key = JSON.stringify(limits);
    const spare = this.#spare;
    this.#spare = undefined;
    clearTimeout(this.#idle);
    let isolate: PluginIsolate | undefined;
    if (spare !== undefined && spare.prelude === prelude && spare.limits === key) {
      isolate = await spare.isolate.catch(() => undefined);
      if (isolate?.disposed === true) isolate = undefined;
    } else if (spare !== undefined) {
      void spare.isolate.then(
        (unused) => unused.dispose(),
        () => {},
      );
    }
    if (isolate === undefined) this.counts.missed += 1;
    else this.counts.served += 1;
    const taken = isolate ?? (await PluginIsolate.prepare(prelude, limits, this.#handlers));
    this.#refill(prelude, limits, key);
    return taken;
  }

  /**
   * Makes the next spare once starts and calls have paused for {@link REFILL_AFTER_MS}: made at once, its
   * `new ivm.Isolate` (synchronous, ≈ 6 ms) held this thread while the start that took the last
   * one was still evaluating its plugin, and its reply waited for it; a burst of starts (a project
   * loading) makes no spare until it ends.
   */
  #refill(prelude: Prelude, limits: SandboxLimits, key: string, wait = REFILL_AFTER_MS): void {
    clearTimeout(this.#idle);
    const seen = this.#calls.changes;
    this.#idle = setTimeout(() => {
      if (this.#closed) return;
      // Calls too: made while one ran or came, its `new ivm.Isolate` held this thread under them.
      // A session's second call, sent as its first was answered, took 10-17 ms instead of 2-3
      // (`toolhost serve`, the first call's start having taken the spare). A call that runs long
      // with nothing else coming is looked at less and less often (up to once a second).
      if (this.#calls.changes !== seen) this.#refill(prelude, limits, key);
      else if (this.#calls.size > 0)
        this.#refill(prelude, limits, key, Math.min(wait * 2, MAX_REFILL_WAIT_MS));
      else this.#make(prelude, limits, key);
    }, wait);
    this.#idle.unref();
  }

  /**
   * A plugin version this process will call: told to the executor process (its `load`), or the
   * first one of an inline sandbox warmed for serving. The first one told before any start gets a
   * spare made now, off any call's path: an executor spawned for a warm start describes nothing,
   * so a served session's first plugin call made its plugin's isolate itself. It is kept until
   * that call, however late it comes (a person reads and types before the model calls): an
   * executor retires after the isolates' idle time when no call comes, and a serving host closes
   * its sandbox when it stops.
   */
  ahead(prelude: () => Promise<Prelude>, limits: SandboxLimits): void {
    if (this.#closed || this.#toldAny || this.#started) return;
    this.#toldAny = true;
    prelude().then(
      (made) => {
        // A start that came while the prelude was made has had its isolate, and asks for the next.
        if (!this.#started) this.#make(made, limits, JSON.stringify(limits), false);
      },
      // No prelude: the first call says why.
      () => {},
    );
  }

  #make(prelude: Prelude, limits: SandboxLimits, key: string, idles = true): void {
    if (this.#closed || this.#spare !== undefined) return;
    clearTimeout(this.#idle);
    const isolate = PluginIsolate.prepare(prelude, limits, this.#handlers);
    // A spare that could not be made is no spare: the next start makes its own isolate.
    isolate.catch(() => {
      if (this.#spare?.isolate === isolate) this.#spare = undefined;
    });
    this.#spare = { prelude, limits: key, isolate };
    if (!idles) return;
    this.#idle = setTimeout(() => this.dispose(false), this.#idleMs);
    this.#idle.unref();
  }

  /** Whether a spare is made or being made. */
  get held(): boolean {
    return this.#spare !== undefined;
  }

  /** Disposes the spare; `close` also makes no more. */
  dispose(close = true): void {
    if (close) this.#closed = true;
    clearTimeout(this.#idle);
    const spare = this.#spare;
    this.#spare = undefined;
    void spare?.isolate.then(
      (isolate) => isolate.dispose(),
      () => {},
    );
  }
}
