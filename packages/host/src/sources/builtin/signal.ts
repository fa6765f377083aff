import type { CallSignal } from '@toolhost/plugin-sdk';

/**
 * An `AbortSignal` for Node APIs that want one. In-process calls already receive a real one; any
 * other `CallSignal` is bridged through a controller of its own.
 */
export function abortSignalOf(signal: CallSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason));
  return controller.signal;
}
