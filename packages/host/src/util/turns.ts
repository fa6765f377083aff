/**
 * Gives the event loop a turn every `every` steps of a pass whose steps are mostly synchronous
 * (the plugin cache's checks read small files with the sync calls): steps `0..every-1` run at
 * once, the next `every` after one turn of the loop (its I/O polled: calls in flight are answered),
 * and so on. A reload of a thousand cached plugins then never holds the loop for the whole pass.
 */
export class Turns {
  readonly #every: number;
  #gate: Promise<void> = Promise.resolve();
  #count = 0;

  constructor(every: number) {
    this.#every = Math.max(1, every);
  }

  /** Resolves when the next step may run. */
  next(): Promise<void> {
    if (this.#count > 0 && this.#count % this.#every === 0) {
      this.#gate = this.#gate.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    }
    this.#count += 1;
    return this.#gate;
  }
}
