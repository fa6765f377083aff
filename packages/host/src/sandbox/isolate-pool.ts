import type {
  CallReply,
  CallRequest,
  DescribeReply,
  HookReply,
  HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import type { Cancellation } from '../util/cancel.js';
import { type CallHandlers, handlersByCall, RunningCalls } from './call-handlers.js';
import { type Generation, isGone, isIdle, oldestIdle, sweepEveryMs } from './isolate-generation.js';
import { IsolateSpare } from './isolate-spare.js';
import { NOT_STARTED } from './outcomes.js';
import {
  type IsolateAnswer,
  type IsolateOutcome,
  type PluginIsolate,
  PluginLoadError,
} from './plugin-isolate.js';
import { type Prelude, preludeStarts } from './prelude.js';
import {
  DEFAULT_ISOLATE_SETTINGS,
  type IsolateHandlers,
  type IsolateSettings,
  type IsolateStats,
  type SandboxLimits,
} from './types.js';

export type { CallHandlers } from './call-handlers.js';

/** How an isolate pool evicts, and the clock it reads (tests give their own). */
export interface IsolatePoolOptions extends Partial<IsolateSettings> {
  /** Milliseconds from any fixed origin; default `performance.now`. */
  readonly now?: () => number;
}

/**
 * The isolates of one process, one per loaded plugin version (named by `versionKey`), created on
 * first call and re-created after a breach. An unloaded version's isolate keeps serving the calls
 * it has and is disposed when the last one ends.
 *
 * A loaded version's isolate is also disposed (evicted) when it has had no call or hook for
 * `idleMs`, and, when creating one would exceed `maxLive`, the least recently used idle one goes;
 * an isolate with calls running is never evicted (over the cap, one goes when they end). The next
 * call re-creates it. One sweep timer per pool, running only while isolates are live. A call
 * costs one clock read (≈ 70 ns here); the least recently used is found by a scan only when an
 * isolate is made at the cap (≥ 1 ms anyway). A Map kept in use order (delete + set per call)
 * measured 100–650 ns per call with 200 entries, most when one plugin is called again and again.
 */
export class IsolatePool {
  readonly #runtime: (bundle: string) => Promise<Prelude>;
  readonly #plugins = new Map<string, Generation>();
  readonly #calls = new RunningCalls();
  /** Calls aborted (`abort`) while they waited for their isolate: they never start. */
  readonly #cancelled = new Set<string>();
  readonly #live = new Set<PluginIsolate>();
  /** Generations of loaded versions with an isolate, made or being made: what eviction looks at. */
  readonly #housed = new Set<Generation>();
  readonly #now: () => number;
  #settings: IsolateSettings;
  #sweeper: NodeJS.Timeout | undefined;
  #evicted = { idle: 0, cap: 0 };
  #closed = false;

  constructor(prelude: (bundle: string) => Promise<Prelude>, options: IsolatePoolOptions = {}) {
    this.#runtime = prelude;
    this.#now = options.now ?? (() => performance.now());
    this.#settings = {
      idleMs: options.idleMs ?? DEFAULT_ISOLATE_SETTINGS.idleMs,
      maxLive: options.maxLive ?? DEFAULT_ISOLATE_SETTINGS.maxLive,
    };
  }

  readonly #handlers: IsolateHandlers = handlersByCall(this.#calls);
  /** The isolate made ahead for the next start (describe or first call); see isolate-spare.ts. */
  readonly spare = new IsolateSpare(this.#handlers, undefined, this.#calls);

  async #create(bundle: string, limits: SandboxLimits): Promise<PluginIsolate> {
    const isolate = await this.spare.take(await this.#runtime(bundle), limits);
    await isolate.load(bundle);
    // An isolate that finished starting after close() must not outlive the pool.
    if (this.#closed) {
      isolate.dispose();
      throw new Error('the sandbox is closed');
    }
    this.#live.add(isolate);
    return isolate;
  }

  #release(isolate: PluginIsolate): void {
    isolate.dispose();
    this.#live.delete(isolate);
  }

  async describe(
    bundle: string,
    configJson: string,
    limits: SandboxLimits,
  ): Promise<IsolateOutcome<DescribeReply>> {
    let isolate: PluginIsolate;
    try {
      isolate = await this.#create(bundle, limits);
    } catch (error) {
      // The caller says "failed to load" already.
      const text = error instanceof PluginLoadError ? error.detail : (error as Error).message;
      return { kind: 'reply', reply: { ok: false, error: text } };
    }
    try {
      return await isolate.describe(configJson);
    } finally {
      this.#release(isolate);
    }
  }

  /** Adds a plugin version under `key` (see `versionKey`); its isolate is created on its first call. */
  load(key: string, bundle: string, limits: SandboxLimits): void {
    if (this.#plugins.has(key)) return;
    this.#plugins.set(key, { bundle, limits, retired: false, inFlight: 0, lastUsed: 0 });
  }

  /** Forgets a version; its isolate goes once the calls already running there have ended. */
  unload(key: string): void {
    const generation = this.#plugins.get(key);
    if (generation === undefined) return;
    this.#plugins.delete(key);
    this.#retire(generation);
  }

  #retire(generation: Generation): void {
    generation.retired = true;
    this.#releaseIfDrained(generation);
  }

  /** A retired generation's isolate goes once no call that picked it is left. */
  #releaseIfDrained(generation: Generation): void {
    if (!generation.retired || generation.inFlight > 0) return;
    this.#housed.delete(generation);
    const started = generation.started;
    if (started !== undefined && started.from === generation.isolate) {
      this.#release(started.isolate);
      return;
    }
    void generation.isolate?.then(
      (isolate) => this.#release(isolate),
      () => {},
    );
  }

  /**
   * The isolate of a generation, created (again) when there is none or the last one breached.
   * The creating promise is stored before any await, so concurrent first calls share one isolate.
   */
  async #isolateOf(generation: Generation): Promise<PluginIsolate | { error: string }> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (generation.isolate === undefined) {
        // Room first: at the cap, the least recently used idle isolate goes.
        this.#housed.delete(generation);
        this.#evictOverCap(this.#settings.maxLive - 1);
        this.#housed.add(generation);
        generation.lastUsed = this.#now();
        this.#startSweeper();
        const created = this.#create(generation.bundle, generation.limits);
        generation.isolate = created;
        created.then(
          (isolate) => {
            generation.started = { from: created, isolate };
          },
          () => {},
        );
      }
      const pending = generation.isolate;
      let isolate: PluginIsolate;
      try {
        isolate = await pending;
      } catch (error) {
        if (generation.isolate === pending) {
          generation.isolate = undefined;
          this.#housed.delete(generation);
        }
        return { error: (error as Error).message };
      }
      if (!isolate.disposed) return isolate;
      this.#live.delete(isolate);
      if (generation.isolate === pending) generation.isolate = undefined;
    }
    return { error: 'the plugin isolate could not be started' };
  }

  /**
   * Runs `invoke` on the generation's isolate. With the isolate already running (the common
   * case) and a call answered within its sync entry, the outcome comes back at once, not as a
   * promise: the executor then replies in the same turn.
   */
  #run<R>(
    key: string,
    callId: string,
    handlers: CallHandlers,
    cancel: Cancellation | undefined,
    invoke: (isolate: PluginIsolate) => IsolateAnswer<R>,
  ): IsolateAnswer<R> {
    const generation = this.#plugins.get(key);
    if (generation === undefined) {
      // The host keeps a version loaded while any call it admitted may still reach it: this is a bug.
      return { kind: 'limit', limit: 'crashed', message: `plugin version ${key} is not loaded` };
    }
    const started = generation.started;
    if (started === undefined || started.from !== generation.isolate || started.isolate.disposed) {
      return this.#runWhenStarted(generation, callId, handlers, cancel, invoke);
    }
    // A caller that gave up before the plugin started gets nothing run on its behalf.
    if (cancel?.aborted) return NOT_STARTED;
    // Counted at once: a reload that retires this generation meanwhile waits for this call.
    this.#admit(generation, callId, handlers);
    let answer: IsolateAnswer<R>;
    try {
      answer = invoke(started.isolate);
    } catch (error) {
      this.#leave(generation, callId, started.isolate);
      throw error;
    }
    if (answer instanceof Promise)
      return answer.finally(() => this.#leave(generation, callId, started.isolate));
    this.#leave(generation, callId, started.isolate);
    return answer;
  }

  /** `#run` when the isolate is still to be created (or re-created after a breach). */
  async #runWhenStarted<R>(
    generation: Generation,
    callId: string,
    handlers: CallHandlers,
    cancel: Cancellation | undefined,
    invoke: (isolate: PluginIsolate) => IsolateAnswer<R>,
  ): Promise<IsolateOutcome<R>> {
    this.#admit(generation, callId, handlers);
    let isolate: PluginIsolate | undefined;
    try {
      const made = await this.#isolateOf(generation);
      if ('error' in made) return { kind: 'limit', limit: 'crashed', message: made.error };
      isolate = made;
      if (cancel?.aborted || this.#cancelled.has(callId)) return NOT_STARTED;
      return await invoke(isolate);
    } finally {
      this.#cancelled.delete(callId);
      this.#leave(generation, callId, isolate);
    }
  }

  #admit(generation: Generation, callId: string, handlers: CallHandlers): void {
    generation.inFlight += 1;
    this.#calls.set(callId, handlers);
  }

  #leave(generation: Generation, callId: string, isolate: PluginIsolate | undefined): void {
    if (isolate?.disposed === true) this.#live.delete(isolate);
    // The call has ended: its pending sleeps (plugin timers) stop on the host too.
    this.#calls.get(callId)?.end?.();
    this.#calls.delete(callId);
    this.#cancelled.delete(callId);
    generation.inFlight -= 1;
    if (generation.retired) {
      this.#releaseIfDrained(generation);
      return;
    }
    generation.lastUsed = this.#now();
    if (this.#housed.size > this.#settings.maxLive) this.#evictOverCap(this.#settings.maxLive);
  }

  /** Disposes an idle generation's isolate; the generation stays loaded and its next call makes another. */
  #evict(generation: Generation, why: 'idle' | 'cap'): void {
    const isolate = (generation.started as { isolate: PluginIsolate }).isolate;
    generation.isolate = undefined;
    generation.started = undefined;
    this.#housed.delete(generation);
    this.#release(isolate);
    this.#evicted[why] += 1;
  }

  /** Evicts the least recently used idle isolates until at most `keep` are left (or none is idle). */
  #evictOverCap(keep: number): void {
    for (const generation of this.#housed) if (isGone(generation)) this.#housed.delete(generation);
    while (this.#housed.size > keep) {
      const oldest = oldestIdle(this.#housed);
      if (oldest === undefined) return;
      this.#evict(oldest, 'cap');
    }
  }

  /** Evicts the isolates idle for `idleMs` or more; calls run by the sweep timer. */
  sweep(): void {
    const oldest = this.#now() - this.#settings.idleMs;
    for (const generation of this.#housed) {
      if (isGone(generation)) this.#housed.delete(generation);
      else if (isIdle(generation) && generation.lastUsed <= oldest) this.#evict(generation, 'idle');
    }
    if (this.#housed.size === 0) this.#stopSweeper();
  }

  #startSweeper(): void {
    if (this.#sweeper !== undefined || this.#closed) return;
    this.#sweeper = setInterval(() => this.sweep(), sweepEveryMs(this.#settings.idleMs));
    this.#sweeper.unref();
  }

  #stopSweeper(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** New eviction settings, in force at once: over a lower cap or a shorter idle time, idle isolates go now. */
  configure(settings: IsolateSettings): void {
    const { idleMs, maxLive } = this.#settings;
    if (settings.idleMs === idleMs && settings.maxLive === maxLive) return;
    this.#settings = { idleMs: settings.idleMs, maxLive: settings.maxLive };
    if (this.#sweeper !== undefined && settings.idleMs !== idleMs) {
      this.#stopSweeper();
      this.#startSweeper();
    }
    this.#evictOverCap(settings.maxLive);
    this.sweep();
  }

  /** Live isolates, the settings in force, the evictions so far and how this process's isolates start. */
  stats(): Omit<IsolateStats, 'scripts'> {
    return {
      live: this.liveIsolates,
      ...this.#settings,
      evicted: { ...this.#evicted },
      preludes: preludeStarts(),
    };
  }

  call(
    key: string,
    request: CallRequest,
    handlers: CallHandlers,
    cancel?: Cancellation,
  ): IsolateAnswer<CallReply> {
    return this.#run(key, request.callId, handlers, cancel, (isolate) => isolate.call(request, cancel));
  }

  hook(key: string, request: HookRequest, handlers: CallHandlers): IsolateAnswer<HookReply> {
    return this.#run(key, request.callId, handlers, undefined, (isolate) => isolate.hook(request));
  }

  /** How the calls of the live isolates got their replies (see `PluginIsolate.replies`). */
  replyStats(): { inEntry: number; waited: number } {
    let inEntry = 0;
    let waited = 0;
    for (const isolate of this.#live) {
      inEntry += isolate.replies.inEntry;
      waited += isolate.replies.waited;
    }
    return { inEntry, waited };
  }

  /**
   * Aborts the `ctx.signal` of call `callId` where it waits (the executor process, on the host's
   * abort frame); one still waiting for its isolate never starts. A call that has ended is let be.
   */
  abort(callId: string, reason: string): void {
    if (!this.#calls.has(callId)) return;
    // A scan of the live isolates, paid only by a call cancelled while it waits.
    const waiting = [...this.#live].find((isolate) => isolate.waitsFor(callId));
    if (waiting === undefined) this.#cancelled.add(callId);
    else waiting.abort(callId, reason);
  }

  /**
   * A call (`name`: the tool) or hook (`name`: the phase) whose request is already JSON, answered
   * with the reply's JSON text untouched: the executor process passes both through.
   */
  text(
    kind: 'call' | 'hook',
    key: string,
    name: string,
    callId: string,
    json: string,
    handlers: CallHandlers,
  ): IsolateAnswer<string> {
    return this.#run(key, callId, handlers, undefined, (isolate) => isolate.text(kind, name, callId, json));
  }

  /** Isolates alive now, including retired ones still draining. */
  get liveIsolates(): number {
    for (const isolate of this.#live) if (isolate.disposed) this.#live.delete(isolate);
    return this.#live.size;
  }

  close(): void {
    this.#closed = true;
    this.spare.dispose();
    this.#stopSweeper();
    this.#housed.clear();
    for (const isolate of this.#live) isolate.dispose();
    this.#live.clear();
    this.#plugins.clear();
  }
}
