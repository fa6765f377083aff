/** Undoes a registration. Calling it twice is harmless. */
type Dispose = () => void;

/**
 * A set of listeners, called in registration order over a copy (one that unsubscribes itself
 * cannot skip a neighbour). A listener's fault is its own: it never stops the emit or the others.
 */
export class Listeners<T> {
  readonly #listeners = new Set<(value: T) => void>();

  add(listener: (value: T) => void): Dispose {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(value);
      } catch {
        // Dropped: see the class comment.
      }
    }
  }

  get size(): number {
    return this.#listeners.size;
  }
}
