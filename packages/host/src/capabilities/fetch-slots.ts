/**
 * The slots of one plugin's `ctx.fetch` requests (`fetchConcurrency`): at most that many hold a
 * connection, a resolution or a body download at once; the others wait their turn, in arrival
 * order. One call once held 993 sockets at once, and the host's own file reads then failed with
 * `EMFILE`. A request waiting for a slot leaves the queue when its call's signal aborts.
 */
export class FetchSlots {
  readonly #slots: number;
  #busy = 0;
  readonly #waiting = new Set<() => void>();

  constructor(slots: number) {
    this.#slots = slots;
  }

  /**
   * Waits for a slot and returns the function that gives it back (call it exactly once). Rejects
   * with `signal`'s reason if it aborts first; no slot is then held.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (this.#busy < this.#slots) {
      this.#busy += 1;
      return Promise.resolve(this.#releaser());
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.delete(grant);
        reject(signal.reason);
      };
      // A slot handed straight over: `busy` stays as it is.
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.#releaser());
      };
      this.#waiting.add(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.values().next();
      if (next.done === true) {
        this.#busy -= 1;
        return;
      }
      this.#waiting.delete(next.value);
      next.value();
    };
  }
}
