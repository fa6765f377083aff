/**
 * At most `slots` tasks running at once; the others wait their turn in arrival order. Loading a
 * hundred plugins at once would otherwise start a hundred builds (each holding its files and AST)
 * and a hundred describe isolates (each holding zod and the SDK) at the same moment; one plugin's
 * `ctx.fs` requests would otherwise take every thread of libuv's pool, which the host's own file
 * operations share.
 */
export class Limiter {
  readonly #slots: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(slots: number) {
    this.#slots = Math.max(1, slots);
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /** Tasks waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `task` once a slot is free; the slot is given back however the task ends. When `signal`
   * aborts while the task is still waiting, it leaves the queue and `run` rejects with
   * `aborted()` (default: the signal's reason); a task already running is not interrupted.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal, aborted?: () => unknown): Promise<T> {
    if (this.#running >= this.#slots) await this.#turn(signal, aborted);
    else this.#running += 1;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next task: `running` never drops and rises again between.
      if (next === undefined) this.#running -= 1;
      else next();
    }
  }

  /** Resolves when a finishing task hands this one its slot. */
  #turn(signal: AbortSignal | undefined, aborted: (() => unknown) | undefined): Promise<void> {
    const reason = () => (aborted === undefined ? signal?.reason : aborted());
    if (signal?.aborted) return Promise.reject(reason());
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(granted);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(reason());
      };
      const granted = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.push(granted);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
