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
  /** Starts served by a spare, and starts that made their own isolate (tests, benchmarks). */
  readonly counts = { served: 0, missed: 0 };

  constructor(handlers: IsolateHandlers, idleMs = SPARE_IDLE_MS) {
    this.#handlers = handlers;
    this.#idleMs = idleMs;
  }

  /**
   * An isolate ready for a bundle of `prelude` under `limits`: the spare when it fits, else a new
   * one. Either way a spare for the next start is then made, off this start's path.
   */
  async take(prelude: Prelude, limits: SandboxLimits): Promise<PluginIsolate> {
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
   * Makes the next spare once starts have paused for {@link REFILL_AFTER_MS}: made at once, its
   * `new ivm.Isolate` (synchronous, ≈ 6 ms) held this thread while the start that took the last
   * one was still evaluating its plugin, and its reply waited for it; a burst of starts (a project
   * loading) makes no spare until it ends.
   */
  #refill(prelude: Prelude, limits: SandboxLimits, key: string): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#closed || this.#spare !== undefined) return;
      const isolate = PluginIsolate.prepare(prelude, limits, this.#handlers);
      // A spare that could not be made is no spare: the next start makes its own isolate.
      isolate.catch(() => {
        if (this.#spare?.isolate === isolate) this.#spare = undefined;
      });
      this.#spare = { prelude, limits: key, isolate };
      this.#idle = setTimeout(() => this.dispose(false), this.#idleMs);
      this.#idle.unref();
    }, REFILL_AFTER_MS);
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
