/** The isolate's timers: `setTimeout`, `setInterval` and their clears, over the host's `sleep` capability. */
import { show } from './console.js';
import type { GlobalsHost } from './host.js';

/** Live timers (per isolate) beyond which `setTimeout`/`setInterval` throw. */
export const MAX_TIMERS = 1000;
/** The longest delay a timer takes (a larger one fires at this), as in browsers and Node. */
const MAX_DELAY_MS = 2_147_483_647;
/** The shortest wait between two runs of an interval, as browsers clamp nested timers. */
export const MIN_INTERVAL_MS = 4;

interface Timer {
  readonly callId: string;
  readonly fn: (...args: unknown[]) => unknown;
  readonly args: unknown[];
  readonly ms: number;
  readonly repeat: boolean;
  /** When it is next due, by the isolate's clock. */
  due: number;
}

const timers = new Map<number, Timer>();
/** The wake-ups each call has asked the host for and not yet had, by when they are due. */
const wakes = new Map<string, Set<number>>();
let nextTimer = 1;
// Captured before plugin code runs: a plugin that replaces Date.now must not stall its timers.
const now = Date.now;

/** Drops the timers of a call that ended (called by the runtime's `endCall`). */
export function clearCallTimers(callId: string): void {
  wakes.delete(callId);
  if (timers.size === 0) return;
  for (const [id, timer] of timers) if (timer.callId === callId) timers.delete(id);
}

/**
 * Timers as one host sleep per wake-up, not per timer: a call asks the host for a sleep until its
 * earliest timer is due (unless a wake-up that early is already on its way), and each wake-up runs
 * every timer of the call then due, in order, inside the isolate, where their CPU counts against
 * the call's limit. A thousand 1 ms timers cost the host about one core when each was a sleep of
 * its own; now they cost it one wake-up per {@link MIN_INTERVAL_MS} at most.
 */
export function makeTimers(host: GlobalsHost) {
  /** Asks the host to wake `callId` in `ms` (for a timer due at `due`), unless an earlier wake-up is coming. */
  const arm = (callId: string, due: number, ms: number) => {
    let pending = wakes.get(callId);
    if (pending === undefined) {
      pending = new Set();
      wakes.set(callId, pending);
    }
    for (const at of pending) if (at <= due) return;
    pending.add(due);
    const owned = pending;
    host.request(
      callId,
      'sleep',
      { ms },
      () => wake(callId, due),
      () => owned.delete(due),
    );
  };
  /** Arms the wake-up for the earliest timer of `callId`, if it has one. */
  const armNext = (callId: string) => {
    let next = Number.POSITIVE_INFINITY;
    for (const timer of timers.values()) if (timer.callId === callId && timer.due < next) next = timer.due;
    if (next !== Number.POSITIVE_INFINITY) arm(callId, next, Math.max(0, next - now()));
  };
  const wake = (callId: string, due: number) => {
    wakes.get(callId)?.delete(due);
    if (!host.running(callId)) return;
    const at = now();
    const ready: [number, Timer][] = [];
    for (const entry of timers) if (entry[1].callId === callId && entry[1].due <= at) ready.push(entry);
    ready.sort((a, b) => a[1].due - b[1].due || a[0] - b[0]);
    for (const [id, timer] of ready) {
      // Cleared (or its call ended) by a callback that ran before it in this wake-up.
      if (timers.get(id) !== timer || !host.running(callId)) continue;
      // Timers set by these callbacks, and the next run of an interval, wait for a later wake-up.
      if (timer.repeat) timer.due = at + timer.ms;
      else timers.delete(id);
      try {
        timer.fn(...timer.args);
      } catch (error) {
        host.log(callId, 'error', `uncaught error in a timer callback: ${show(error)}`);
      }
    }
    if (host.running(callId)) armNext(callId);
  };
  const schedule = (name: string, fn: unknown, delay: unknown, args: unknown[], repeat: boolean) => {
    if (typeof fn !== 'function') {
      throw new TypeError(`${name} needs a function (a string of code is not evaluated in plugins)`);
    }
    const callId = host.currentCall();
    if (callId === undefined) {
      throw new Error(
        `${name} works only while a tool call (or hook) runs: timers are cleared when their call ends`,
      );
    }
    if (timers.size >= MAX_TIMERS) {
      throw new RangeError(`${name}: more than ${MAX_TIMERS} timers are pending in this plugin`);
    }
    let ms = Number(delay);
    if (!(ms >= 0)) ms = 0;
    ms = Math.min(Math.max(ms, repeat ? MIN_INTERVAL_MS : 0), MAX_DELAY_MS);
    const id = nextTimer++;
    const due = now() + ms;
    timers.set(id, { callId, fn: fn as Timer['fn'], args, ms, repeat, due });
    arm(callId, due, ms);
    return id;
  };
  const clear = (id: unknown) => {
    timers.delete(Number(id));
  };
  return {
    setTimeout: (fn: unknown, delay?: unknown, ...args: unknown[]) =>
      schedule('setTimeout', fn, delay, args, false),
    setInterval: (fn: unknown, delay?: unknown, ...args: unknown[]) =>
      schedule('setInterval', fn, delay, args, true),
    clearTimeout: clear,
    clearInterval: clear,
  };
}
