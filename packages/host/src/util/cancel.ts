/**
 * A call's cancellation as the paths below the wrapper see it: whether it was cancelled, and a
 * listener for when it is — without an `AbortSignal` unless something needs one. Making a signal,
 * listening to it and aborting it at the end of every call cost a sandboxed call about 5 µs of
 * host CPU, for the rare call that is cancelled while it runs; a `CancelSource` makes its signal
 * only when asked for it (a capability that passes it to `fetch`, a sleep).
 */
export interface Cancellation {
  readonly aborted: boolean;
  /** Why, once aborted. */
  readonly reason: unknown;
  /** A signal that aborts with it, made on first use. */
  readonly signal: AbortSignal;
  /**
   * Runs `listener` once when it is cancelled (never when it already was, as with a signal);
   * returns the disposer.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
}

/** A cancellation that its owner stops; its signal and listeners exist only when used. */
export class CancelSource implements Cancellation {
  #controller: AbortController | undefined;
  #listeners: ((reason: unknown) => void)[] | undefined;
  #reason: unknown;
  #aborted = false;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) return noop;
    this.#listeners ??= [];
    this.#listeners.push(listener);
    return () => {
      const listeners = this.#listeners;
      const at = listeners === undefined ? -1 : listeners.indexOf(listener);
      if (at >= 0) listeners?.splice(at, 1);
    };
  }

  /** Cancels: the signal (if made) aborts, then each listener runs once; a throwing one is skipped. */
  stop(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch {
        // One listener's fault must not keep the others from hearing of it.
      }
    }
  }
}

const noop = () => {};

/** The cancellation of an `AbortSignal` (for callers that have one). */
export function signalCancellation(signal: AbortSignal): Cancellation {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason;
    },
    signal,
    onAbort(listener) {
      if (signal.aborted) return noop;
      const heard = () => listener(signal.reason);
      signal.addEventListener('abort', heard, { once: true });
      return () => signal.removeEventListener('abort', heard);
    },
  };
}

/**
 * The cancellation of the call an executor runs: the one its context carries (the wrapper's
 * contexts do, no signal made until something needs one), else its signal's.
 */
export function cancellationOf(ctx: {
  readonly signal: AbortSignal;
  readonly cancellation?: Cancellation;
}): Cancellation {
  return ctx.cancellation ?? signalCancellation(ctx.signal);
}

/** Either kind, as a `Cancellation`. */
export function asCancellation(from: Cancellation | AbortSignal): Cancellation {
  return from instanceof AbortSignal ? signalCancellation(from) : from;
}
