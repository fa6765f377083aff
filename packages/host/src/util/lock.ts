/**
 * A FIFO async mutex. `run` waits for every earlier holder to finish, so the critical sections
 * of one session never interleave, even across `await`s. Not re-entrant: a hook that calls back
 * into its own session's hooks would wait for itself.
 */
export class AsyncMutex {
  #tail: Promise<void> = Promise.resolve();

  async run<T>(critical: () => T | Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release: () => void = () => {};
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await critical();
    } finally {
      release();
    }
  }
}
