import {
  type CallReply,
  type CallRequest,
  type DescribeReply,
  explainMissingGlobal,
  type HookReply,
  type HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import ivm from 'isolated-vm';
import type { Cancellation } from '../util/cancel.js';
import { messageOf } from '../util/errors.js';
import { callRequestJson } from './call-request.js';
import { EntryModes } from './entry-modes.js';
import { attachRuntime, bridgeOf, type Entry, LOAD_TIMEOUT_MS } from './isolate-bridge.js';
import { IsolateGuard } from './isolate-guard.js';
import {
  breachOf,
  GONE,
  type IsolateAnswer,
  type IsolateOutcome,
  isEngineFailure,
  type LimitBreach,
  NON_STRING,
  NOT_STARTED,
  outcomeOf,
  PluginLoadError,
  strayLine,
  WaitingCall,
} from './outcomes.js';
import type { Prelude } from './prelude.js';
import type { IsolateHandlers, SandboxLimits } from './types.js';

export type { IsolateAnswer, IsolateOutcome, LimitBreach } from './outcomes.js';
export { PluginLoadError } from './outcomes.js';

/** Milliseconds of isolated-vm's nanosecond CPU times. */
const msOf = (ns: bigint): number => Number(ns) / 1e6;

/**
 * One plugin's isolate: the runtime first, then the plugin bundle. A tool's calls enter it async
 * (`apply`, on the isolate's own thread, so a spinning plugin never blocks this process's event
 * loop) until they prove quick; then sync (`applySync`, see entry-modes.ts for how long that may
 * hold the thread). Calls are bounded by isolated-vm's `timeout` (synchronous work: the CPU
 * budget for a sync entry), a CPU-time watchdog (async continuations) and a wall-clock deadline
 * (promises that never settle), both in isolate-guard.ts. A breach disposes the isolate; the owner creates a fresh one for
 * the next call.
 */
export class PluginIsolate {
  readonly #isolate: ivm.Isolate;
  readonly #limits: SandboxLimits;
  #entry: Entry | undefined;
  /** The context a prepared isolate's bundle will run in (`load`), until it has. */
  #context: ivm.Context | undefined;
  /** Calls and hooks waiting for their reply, by call id: the runtime's `reply` lands here. */
  readonly #waiting = new Map<string, (outcome: string | LimitBreach) => void>();
  /** How each tool (or hook phase) is entered: `sync` once it proved quick, `async` after a long entry. */
  readonly #modes = new EntryModes();
  /** The mode key of each call in flight, for its capability replies (`settle`). */
  readonly #callKey = new Map<string, string>();
  #breach: LimitBreach | undefined;
  /** The deadline and the CPU watchdog of entries off the sync path. */
  readonly #guard: IsolateGuard;
  /** Where a stray rejection is logged: to the call whose entry it ended, if that call still runs. */
  #handlers: IsolateHandlers | undefined;

  /**
   * How calls and hooks got their replies: within their sync entry, or by waiting (the async
   * path, capability round trips). For tests and benchmarks: a quick tool should mostly do the first.
   */
  readonly replies = { inEntry: 0, waited: 0 };

  private constructor(limits: SandboxLimits, snapshot: Prelude['snapshot']) {
    this.#limits = limits;
    // No catastrophic-error handler: isolated-vm runs it on the main thread and parks the failing
    // thread until it has run, so an out-of-memory abort inside a sync entry (on the main thread)
    // would wait for itself forever. V8's own abort ends the process at once instead; whoever
    // supervises it speaks for the calls it had in flight (the host for an executor process,
    // started-mark.ts; the serve supervisor, in-flight-slots.ts).
    this.#isolate = new ivm.Isolate({
      memoryLimit: limits.memoryMb,
      ...(snapshot === undefined ? {} : { snapshot }),
    });
    this.#guard = new IsolateGuard(this.#isolate, limits, {
      abortEntry: () => this.#entry?.abort,
      fail: (breach) => this.#fail(breach),
    });
  }

  /**
   * Creates the isolate from the prelude's snapshot (or evaluates the prelude in it) and attaches
   * the bridge: ready for one plugin's bundle (`load`), which no code of has run yet. Throws a
   * readable error.
   */
  static async prepare(
    prelude: Prelude,
    limits: SandboxLimits,
    handlers: IsolateHandlers,
  ): Promise<PluginIsolate> {
    const sandbox = new PluginIsolate(limits, prelude.snapshot);
    try {
      sandbox.#handlers = handlers;
      sandbox.#context = await sandbox.#isolate.createContext();
      const bridge = bridgeOf(handlers, {
        settle: (id, reply, callId) => sandbox.#settle(id, reply, callId),
        replied: (callId, json) => sandbox.#replied(callId, json),
      });
      sandbox.#entry = await attachRuntime(sandbox.#isolate, sandbox.#context, prelude, bridge);
      return sandbox;
    } catch (error) {
      throw sandbox.#loadError(error);
    }
  }

  /** Evaluates the plugin bundle, once, in a prepared isolate. Throws a readable error. */
  async load(bundle: string): Promise<void> {
    const context = this.#context;
    this.#context = undefined;
    try {
      if (context === undefined || this.#isolate.isDisposed) throw new Error('the isolate is not ready');
      // Plugin code runs only now, when the runtime has captured what it needs.
      const script = await this.#isolate.compileScript(bundle, { filename: 'plugin.js' });
      const timeout = Math.min(this.#limits.timeoutMs, LOAD_TIMEOUT_MS);
      await this.#guard.run(() => script.run(context, { timeout }), 'load');
      script.release();
    } catch (error) {
      throw this.#loadError(error);
    }
  }

  /** Why a start failed, read before the isolate is disposed. */
  #loadError(error: unknown): PluginLoadError {
    const breach = this.#breach ?? (this.#isolate.isDisposed ? breachOf(error, this.#limits) : undefined);
    this.dispose();
    return new PluginLoadError(breach ? breach.message : explainMissingGlobal(messageOf(error)));
  }

  get disposed(): boolean {
    return this.#isolate.isDisposed;
  }

  async describe(configJson: string): Promise<IsolateOutcome<DescribeReply>> {
    if (this.#breach !== undefined) return this.#breach;
    const entry = this.#entry;
    if (entry === undefined || this.#isolate.isDisposed) return GONE;
    try {
      const text = await this.#guard.run(
        () =>
          this.#guard.tracked(
            entry.describe.apply(undefined, [configJson], {
              arguments: { copy: true },
              result: { promise: true, copy: true },
              timeout: this.#limits.timeoutMs,
            }) as Promise<unknown>,
          ),
        'describe',
      );
      return typeof text === 'string'
        ? { kind: 'reply', reply: JSON.parse(text) as DescribeReply }
        : NON_STRING;
    } catch (error) {
      return this.#breachFrom(error);
    }
  }

  /** Runs a call; `cancel` aborts the call's `ctx.signal` in the isolate while the host waits for it. */
  call(request: CallRequest, cancel?: Cancellation): IsolateAnswer<CallReply> {
    const { toolName, callId } = request;
    return this.#begin('call', `call:${toolName}`, callId, callRequestJson(request), false, cancel);
  }

  hook(request: HookRequest): IsolateAnswer<HookReply> {
    return this.#begin('hook', `hook:${request.phase}`, request.callId, JSON.stringify(request), false);
  }

  /**
   * A call or hook whose request is already JSON, answered with the reply's JSON text as the
   * runtime wrote it (the executor process passes both through; the host parses the reply).
   * `name` is the tool's name for a call, the phase for a hook. Its cancellation comes as the
   * pool's `abort`, when the host's abort frame does.
   */
  text(kind: 'call' | 'hook', name: string, callId: string, json: string): IsolateAnswer<string> {
    return this.#begin(kind, `${kind}:${name}`, callId, json, true);
  }

  /**
   * Whether call `callId` waits here: for its reply, or to start once the async entries end (the
   * pool's `abort` looks for it).
   */
  waitsFor(callId: string): boolean {
    return this.#waiting.has(callId) || this.#guard.holds(callId);
  }

  /**
   * Starts a call or hook and gets its reply: on the sync path when its tool has proved quick
   * (see entry-modes.ts), answering at once — not a promise — when the reply came within the
   * entry (a quick tool's call then costs no promise, no microtask and no timer here); otherwise
   * (and for what waits on the host) a promise, under the wall-clock deadline and CPU watchdog.
   */
  #begin<R>(
    kind: 'call' | 'hook',
    key: string,
    callId: string,
    json: string,
    raw: boolean,
    cancel?: Cancellation,
  ): IsolateAnswer<R> {
    if (this.#breach !== undefined) return this.#breach;
    const entry = this.#entry;
    if (entry === undefined || this.#isolate.isDisposed) return GONE;
    // A call of a tool on the sync path waits while async entries run (a sync entry cannot start
    // then), and so does every call while one waits, so the async entries end. Entering async
    // instead kept the isolate there: under load some call was always in an async entry, and a
    // quick tool's calls took the async path, at several times the CPU, until the load paused
    // (7,000-50,000 calls/s from one burst of 20,000 calls at 5,000 in flight to the next).
    if (this.#guard.held || (this.#guard.asyncEntries > 0 && this.#modes.isSync(key))) {
      return this.#guard
        .hold(callId, cancel)
        .then((start) => (start ? this.#begin<R>(kind, key, callId, json, raw, cancel) : NOT_STARTED));
    }
    const call = new WaitingCall();
    this.#waiting.set(callId, call.settle);
    this.#callKey.set(callId, key);
    if (!(this.#modes.isSync(key) && this.#guard.asyncEntries === 0)) {
      const cpuBefore = this.#isolate.cpuTime;
      this.#modes.enteredAsync(key, msOf(cpuBefore));
      const alone = this.#guard.active === 0;
      const entered = this.#enterAsync(entry, kind, json, callId);
      return this.#waitFor<R>(call, key, callId, raw, cancel, { entered, cpuBefore, alone });
    }
    this.#modes.enteredSync(key);
    let answered: IsolateOutcome<R> | undefined;
    try {
      if (
        !this.#enterSync(key, callId, () =>
          this.#replied(callId, entry.begin.applySync(undefined, [kind, json], this.#guard.syncOptions())),
        )
      ) {
        answered = this.#breach ?? GONE;
      } else if (call.settled !== undefined) {
        this.replies.inEntry += 1;
        answered = outcomeOf<R>(call.settled, raw);
      }
    } catch (error) {
      answered = this.#breachFrom(error);
    }
    if (answered === undefined) return this.#waitFor<R>(call, key, callId, raw, cancel, undefined);
    this.#waiting.delete(callId);
    this.#callKey.delete(callId);
    return answered;
  }

  /** A reply of `callId` to its waiter: the bridge's, or `begin`'s (undefined: it comes by the bridge). */
  #replied(callId: string, json: unknown): void {
    if (typeof json !== 'string') return;
    const waiter = this.#waiting.get(callId);
    this.#waiting.delete(callId);
    waiter?.(json);
  }

  /** An async entry of a call (`apply`): its reply when it answered in it (`begin`); a failure breaches. */
  #enterAsync(entry: Entry, kind: string, json: string, callId: string): Promise<unknown> {
    return this.#guard
      .tracked(
        entry.begin.apply(undefined, [kind, json], {
          arguments: { copy: true },
          timeout: this.#limits.timeoutMs,
        }),
      )
      .then((reply: unknown) => this.#replied(callId, reply))
      .catch((error: unknown) => {
        if (!this.#isolate.isDisposed && !this.#stray(error, callId))
          this.#fail(breachOf(error, this.#limits));
      });
  }

  /**
   * A stray rejection (see `isEngineFailure`) that ended an entry of `callId`: logged to that call
   * while it runs, and otherwise let be. True when `error` was one: nothing is reset, no call fails.
   */
  #stray(error: unknown, callId: string): boolean {
    if (this.#isolate.isDisposed || isEngineFailure(error)) return false;
    this.#handlers?.log(callId, 'error', strayLine(error), '');
    return true;
  }

  /**
   * Waits for the reply of a call that did not get it within a sync entry: one that entered async
   * (`async`: the entry, the isolate's CPU time before it, and whether no other call was running),
   * or a sync one waiting on the host (a capability).
   */
  async #waitFor<R>(
    call: WaitingCall,
    key: string,
    callId: string,
    raw: boolean,
    cancel: Cancellation | undefined,
    async:
      | { readonly entered: Promise<unknown>; readonly cpuBefore: bigint; readonly alone: boolean }
      | undefined,
  ): Promise<IsolateOutcome<R>> {
    this.replies.waited += 1;
    try {
      const outcome = await this.#guard.reply(call, callId, cancel);
      // The reply can come before the entry has left the isolate (a quick tool replies from
      // within it); the caller's next call should find the isolate free for a sync entry.
      if (async !== undefined) await async.entered;
      // A quick first call alone in the isolate sends its tool sync; else a crowd (entry-modes.ts).
      if (async !== undefined && this.#modes.undecided(key) && typeof outcome === 'string') {
        const [start, now] = [msOf(async.cpuBefore), msOf(this.#isolate.cpuTime)];
        if (async.alone && this.#guard.active === 0) this.#modes.afterAsyncEntry(key, now - start);
        else this.#modes.afterCrowdedEntry(key, start, now);
      }
      return outcomeOf<R>(outcome, raw);
    } catch (error) {
      return this.#breachFrom(error);
    } finally {
      this.#waiting.delete(callId);
      this.#callKey.delete(callId);
    }
  }

  /**
   * Runs a sync entry of `callId`; a long one demotes its tool (`key`) to the async path. False
   * when it ran past its budget: the isolate is then reset with a `cpuMs` breach.
   */
  #enterSync(key: string, callId: string, run: () => unknown): boolean {
    const started = performance.now();
    const cpuBefore = this.#isolate.cpuTime;
    try {
      run();
    } catch (error) {
      if (this.#stray(error, callId)) return true;
      const breach = breachOf(error, this.#limits, this.#guard.syncBudget());
      if (!this.#isolate.isDisposed || this.#breach === undefined) this.#fail(breach);
      return false;
    } finally {
      // Long by the clock and by the isolate's own CPU: a process that was merely descheduled
      // (a busy machine) or a host-side pause does not demote a quick tool.
      if (EntryModes.mayBeLong(performance.now() - started) && !this.#isolate.isDisposed) {
        this.#modes.afterLongSyncEntry(key, msOf(this.#isolate.cpuTime - cpuBefore));
      }
    }
    return true;
  }

  #breachFrom(error: unknown): LimitBreach {
    if (this.#breach !== undefined) return this.#breach;
    const breach = breachOf(error, this.#limits);
    this.#fail(breach);
    return breach;
  }

  /**
   * Aborts `ctx.signal` of a call in this isolate (best effort: the isolate may be gone); a call
   * still held (`IsolateGuard.hold`) never starts.
   */
  abort(callId: string, reason: string): void {
    this.#guard.abort(callId, reason);
  }

  dispose(): void {
    this.#guard.stop();
    if (!this.#isolate.isDisposed) this.#isolate.dispose();
  }

  /** Answers a capability request: a sync entry when the call's tool is on the sync path. */
  #settle(requestId: number, replyJson: string, callId: string): void {
    const entry = this.#entry;
    if (this.#isolate.isDisposed || entry === undefined) return;
    const key = this.#callKey.get(callId);
    if (key !== undefined && this.#modes.isSync(key) && this.#guard.asyncEntries === 0) {
      this.#enterSync(key, callId, () =>
        entry.settle.applySync(undefined, [requestId, replyJson], this.#guard.syncOptions()),
      );
      return;
    }
    this.#guard
      .tracked(
        entry.settle.apply(undefined, [requestId, replyJson], {
          arguments: { copy: true },
          timeout: this.#limits.timeoutMs,
        }),
      )
      .catch((error) => {
        // A continuation that spins past the timeout breaches like any synchronous loop.
        if (!this.#isolate.isDisposed && !this.#stray(error, callId))
          this.#fail(breachOf(error, this.#limits));
      });
  }

  /** Records the first breach and disposes: every call in flight here then ends with it. */
  #fail(breach: LimitBreach): void {
    this.#breach ??= breach;
    this.dispose();
    const first = this.#breach;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const waiter of waiting) waiter(first);
  }
}
