/**
 * The limits a plugin isolate's entries run under once they leave the sync path: a wall-clock
 * deadline per entry (promises that never settle) and a CPU-time watchdog over all of them
 * (async continuations), and the wait for a call's reply under both; and the hold of calls that
 * may not enter while async entries run. `PluginIsolate` owns one.
 */

import type ivm from 'isolated-vm';
import type { Cancellation } from '../util/cancel.js';
import type { EntryRef } from './isolate-bridge.js';
import type { LimitBreach, WaitingCall } from './outcomes.js';
import type { SandboxLimits } from './types.js';

/** How often the CPU watchdog samples `isolate.cpuTime` during calls. */
const WATCHDOG_MS = 25;

/** How long a call that ran out of time may take to hear its `ctx.signal` abort before its isolate is reset. */
const ABORT_GRACE_MS = 50;

/** What the guard needs of its isolate's owner. */
export interface GuardOwner {
  /** The runtime's abort entry, once attached. */
  abortEntry(): EntryRef | undefined;
  /** Records the breach and disposes the isolate: every call in flight ends with it. */
  fail(breach: LimitBreach): void;
}

export class IsolateGuard {
  readonly #isolate: ivm.Isolate;
  readonly #limits: SandboxLimits;
  readonly #syncOptions: { readonly timeout: number };
  readonly #owner: GuardOwner;
  #active = 0;
  /**
   * Async entries (`apply`) not yet settled. No sync entry starts while one runs: the isolate's
   * thread may be calling back into this one, and a sync entry would wait for its lock (deadlock).
   */
  #asyncEntries = 0;
  /** Calls waiting for the async entries to end, resumed in the order they came. */
  readonly #drained: (() => void)[] = [];
  /** The calls {@link hold} holds, by call id: true once aborted. */
  readonly #held = new Map<string, boolean>();
  #watchdog: NodeJS.Timeout | undefined;
  readonly #callCpuStart = new Map<string, bigint>();

  constructor(isolate: ivm.Isolate, limits: SandboxLimits, owner: GuardOwner) {
    this.#isolate = isolate;
    this.#limits = limits;
    this.#owner = owner;
    this.#syncOptions = Object.freeze({ timeout: this.syncBudget() });
  }

  /** Async entries not yet settled. */
  get asyncEntries(): number {
    return this.#asyncEntries;
  }

  /** Counts an async entry while it runs (see {@link #asyncEntries}). */
  tracked<T>(entered: Promise<T>): Promise<T> {
    this.#asyncEntries += 1;
    const done = () => {
      this.#asyncEntries -= 1;
      if (this.#asyncEntries === 0 && this.#drained.length > 0) {
        for (const resume of this.#drained.splice(0)) resume();
      }
    };
    entered.then(done, done);
    return entered;
  }

  /**
   * Holds call `callId` until no async entry runs (the settling of the last one): true when it
   * may start then, false when it was cancelled meanwhile, by `cancel` or by {@link abort}.
   */
  async hold(callId: string, cancel: Cancellation | undefined): Promise<boolean> {
    this.#held.set(callId, false);
    try {
      await new Promise<void>((resolve) => this.#drained.push(resolve));
      return this.#held.get(callId) === false && cancel?.aborted !== true;
    } finally {
      this.#held.delete(callId);
    }
  }

  /** Whether call `callId` is held ({@link hold}). */
  holds(callId: string): boolean {
    return this.#held.has(callId);
  }

  /** Whether calls wait for the async entries to end ({@link hold}). */
  get held(): boolean {
    return this.#drained.length > 0;
  }

  /** The longest a sync entry may hold the thread: the CPU budget, within the wall-clock limit. */
  syncBudget(): number {
    return Math.min(this.#limits.cpuMs, this.#limits.timeoutMs);
  }

  /**
   * Options of a sync entry (`applySync`): at most {@link syncBudget} ms of the thread. Made once
   * (the limits never change). The arguments are strings and numbers, which isolated-vm passes
   * as primitives; `copy` would serialize each into a copy first.
   */
  syncOptions(): { readonly timeout: number } {
    return this.#syncOptions;
  }

  /** Entries running under the guard now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Waits for the reply of `call` under the deadline and the watchdog; `cancel` aborts the call's
   * `ctx.signal` in the isolate meanwhile. Listened to only while the host waits: a call that
   * finishes within its sync entry never touches its cancellation (adding and removing a listener
   * costs more than the entry).
   */
  async reply(
    call: WaitingCall,
    callId: string,
    cancel: Cancellation | undefined,
  ): Promise<string | LimitBreach> {
    const stopListening = cancel?.onAbort((reason) => this.abort(callId, String(reason ?? 'cancelled')));
    try {
      return await this.run(
        () =>
          new Promise<string | LimitBreach>((resolve) => {
            if (call.settled !== undefined) resolve(call.settled);
            else call.wake = resolve;
          }),
        callId,
      );
    } finally {
      stopListening?.();
    }
  }

  /**
   * Aborts `ctx.signal` of a call in this isolate (best effort: the isolate may be gone); a call
   * still held ({@link hold}) never starts.
   */
  abort(callId: string, reason: string): void {
    if (this.#held.has(callId)) {
      this.#held.set(callId, true);
      return;
    }
    const entry = this.#owner.abortEntry();
    if (entry === undefined) return;
    this.tracked(entry.apply(undefined, [callId, reason], { timeout: this.#limits.timeoutMs })).catch(
      () => {},
    );
  }

  /** Aborts a call's `ctx.signal` and waits for it, at most {@link ABORT_GRACE_MS}. */
  async #abortBriefly(callId: string, reason: string): Promise<void> {
    const entry = this.#owner.abortEntry();
    if (entry === undefined || this.#isolate.isDisposed) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ABORT_GRACE_MS);
    });
    try {
      await Promise.race([
        this.tracked(entry.apply(undefined, [callId, reason], { timeout: ABORT_GRACE_MS })).catch(() => {}),
        grace,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs one entry call under the wall-clock deadline and the CPU watchdog. */
  async run<T>(start: () => Promise<T>, callId: string): Promise<T> {
    this.#active += 1;
    this.#callCpuStart.set(callId, this.#isolate.cpuTime);
    this.#startWatchdog();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const ms = this.#limits.timeoutMs;
        // The plugin hears of it first (`ctx.signal` aborts inside the isolate, so it can log or
        // clean up), for a moment at most; then the isolate is reset.
        void this.#abortBriefly(callId, `timed out after ${ms} ms (limit: timeoutMs)`).then(() => {
          this.#owner.fail({
            kind: 'limit',
            limit: 'timeoutMs',
            message: `the plugin did not finish within its time limit (timeoutMs: ${ms})`,
          });
          reject(new Error('deadline'));
        });
      }, this.#limits.timeoutMs);
    });
    try {
      return await Promise.race([start(), deadline]);
    } finally {
      clearTimeout(timer);
      this.#callCpuStart.delete(callId);
      this.#active -= 1;
      if (this.#active === 0) this.stop();
    }
  }

  #startWatchdog(): void {
    if (this.#watchdog !== undefined) return;
    this.#watchdog = setInterval(() => {
      if (this.#isolate.isDisposed) return;
      const now = this.#isolate.cpuTime;
      for (const started of this.#callCpuStart.values()) {
        if (Number(now - started) / 1e6 > this.#limits.cpuMs) {
          this.#owner.fail({
            kind: 'limit',
            limit: 'cpuMs',
            message: `the plugin ran past its CPU time limit (cpuMs: ${this.#limits.cpuMs})`,
          });
          return;
        }
      }
    }, WATCHDOG_MS);
    this.#watchdog.unref();
  }

  /** Stops the watchdog (the isolate is disposed, or no entry runs). */
  stop(): void {
    if (this.#watchdog !== undefined) clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }
}
