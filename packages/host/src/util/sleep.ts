import { MAX_TIMER_MS } from './timers.js';

/**
 * Resolves after `ms`, or never when `signal` aborts first: the timer is cleared on abort, so no
 * sleep outlives the call it belongs to (its awaiter is abandoned with the call). A sleep longer
 * than a timer holds waits {@link MAX_TIMER_MS} (≈ 24.8 days) rather than firing at once.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return;
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', cancel);
        resolve();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    const cancel = () => clearTimeout(timer);
    signal.addEventListener('abort', cancel, { once: true });
  });
}
