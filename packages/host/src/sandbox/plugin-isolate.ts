import {
  BRIDGE_GLOBAL,
  type CallReply,
  type CallRequest,
  type DescribeReply,
  ENTRY_GLOBAL,
  type HookReply,
  type HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import ivm from 'isolated-vm';
import { messageOf } from '../util/errors.js';
import type { IsolateHandlers, LimitName, SandboxLimits } from './types.js';

/** A call ended by a limit (or a dead isolate) instead of a reply. */
export interface LimitBreach {
  readonly kind: 'limit';
  readonly limit: LimitName;
  readonly message: string;
}

export type IsolateOutcome<R> = { readonly kind: 'reply'; readonly reply: R } | LimitBreach;

/** A plugin bundle that could not be loaded into a fresh isolate; `detail` says why, without the prefix. */
export class PluginLoadError extends Error {
  readonly detail: string;

  constructor(detail: string) {
    super(`loading the plugin failed: ${detail}`);
    this.detail = detail;
  }
}

/** How often the CPU watchdog samples `isolate.cpuTime` during calls. */
const WATCHDOG_MS = 25;

/** The limits of the isolate-side `timeout` while loading (bundle evaluation). */
const LOAD_TIMEOUT_MS = 5_000;

/** How long a call that ran out of time may take to hear its `ctx.signal` abort before its isolate is reset. */
const ABORT_GRACE_MS = 50;

/**
 * Sync entries. A call or hook is entered with `applySync` — its reply often arrives before the
 * entry returns, with no thread hand-off, timer or promise — once its tool has shown it is quick:
 * its first call runs on the async path, and if the isolate spent under {@link PROMOTE_CPU_MS} of
 * CPU on it (with no other call running there), the tool goes sync. A sync entry that holds the
 * thread longer than {@link DEMOTE_MS} sends its tool back to the async path for the life of the
 * isolate, so a tool stalls its process at most once per version, and never past its CPU budget
 * (`cpuMs`, the sync entry's timeout).
 */
const PROMOTE_CPU_MS = 2;
const DEMOTE_MS = 5;

type EntryRef = ivm.Reference<(...args: unknown[]) => unknown>;

const GONE: LimitBreach = { kind: 'limit', limit: 'crashed', message: 'the plugin isolate is gone' };
const NON_STRING: LimitBreach = {
  kind: 'limit',
  limit: 'crashed',
  message: 'the plugin runtime returned a non-string reply',
};

/** Options of a sync entry: arguments copied in, at most `timeout` ms of the thread. */
function SYNC_ARGS(timeout: number) {
  return { arguments: { copy: true }, timeout } as const;
}

/** A reply's text parsed (or left as text when `raw`), or the breach that ended the call instead. */
function outcomeOf<R>(outcome: string | LimitBreach, raw: boolean): IsolateOutcome<R> {
  if (typeof outcome !== 'string') return outcome;
  return { kind: 'reply', reply: (raw ? outcome : JSON.parse(outcome)) as R };
}

/** Maps an isolated-vm failure to the limit it means. */
function breachOf(error: unknown, limits: SandboxLimits): LimitBreach {
  const text = messageOf(error);
  if (/memory limit/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'memoryMb',
      message: `the plugin exceeded its memory limit (memoryMb: ${limits.memoryMb})`,
    };
  }
  if (/timed out/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'timeoutMs',
      message: `the plugin ran synchronously past its time limit (timeoutMs: ${limits.timeoutMs})`,
    };
  }
  return { kind: 'limit', limit: 'crashed', message: `the plugin's isolate failed: ${text}` };
}

/**
 * One plugin's isolate: the runtime first, then the plugin bundle. Every entry point is async
 * (`apply`), so a spinning plugin blocks only its own isolate thread, never this process's event
 * loop; calls are bounded by isolated-vm's `timeout` (synchronous work), a CPU-time watchdog
 * (async continuations) and a wall-clock deadline (promises that never settle). A breach disposes
 * the isolate; the owner creates a fresh one for the next call.
 */
export class PluginIsolate {
  readonly #isolate: ivm.Isolate;
  readonly #limits: SandboxLimits;
  #entry: { begin: EntryRef; describe: EntryRef; settle: EntryRef; abort: EntryRef } | undefined;
  /** Calls and hooks waiting for their reply, by call id: the runtime's `reply` lands here. */
  readonly #waiting = new Map<string, (outcome: string | LimitBreach) => void>();
  /** How each tool (or hook phase) is entered: `sync` once it proved quick, `async` after a long entry. */
  readonly #mode = new Map<string, 'sync' | 'async'>();
  /** The mode key of each call in flight, for its capability replies (`settle`). */
  readonly #callKey = new Map<string, string>();
  #breach: LimitBreach | undefined;
  #active = 0;
  #watchdog: NodeJS.Timeout | undefined;
  readonly #callCpuStart = new Map<string, bigint>();

  /**
   * Set in the executor process: when V8 loses control of an isolate, end the process at once (the
   * host restarts it) rather than risk a hung or corrupt process. Left off inline, where the process
   * is the host itself.
   */
  static abortOnCatastrophe = false;

  private constructor(limits: SandboxLimits) {
    this.#limits = limits;
    this.#isolate = new ivm.Isolate({
      memoryLimit: limits.memoryMb,
      ...(PluginIsolate.abortOnCatastrophe
        ? {
            onCatastrophicError: (message: string) => {
              process.stderr.write(`toolhost executor: catastrophic isolate error: ${message}\n`);
              process.abort();
            },
          }
        : {}),
    });
  }

  /** Creates the isolate, evaluates the runtime and then the plugin bundle. Throws a readable error. */
  static async create(
    runtimeScript: string,
    bundle: string,
    limits: SandboxLimits,
    handlers: IsolateHandlers,
  ): Promise<PluginIsolate> {
    const sandbox = new PluginIsolate(limits);
    try {
      await sandbox.#load(runtimeScript, bundle, handlers);
      return sandbox;
    } catch (error) {
      const breach = sandbox.#breach ?? (sandbox.#isolate.isDisposed ? breachOf(error, limits) : undefined);
      sandbox.dispose();
      throw new PluginLoadError(breach ? breach.message : messageOf(error));
    }
  }

  async #load(runtimeScript: string, bundle: string, handlers: IsolateHandlers): Promise<void> {
    const context = await this.#isolate.createContext();
    // Only these callbacks enter the isolate: functions of strings and numbers, nothing else.
    // They never throw into the isolate: a host error (and its stack) must not reach plugin code.
    const guarded =
      (fn: (...args: unknown[]) => void) =>
      (...args: unknown[]): undefined => {
        try {
          fn(...args);
        } catch {
          // A host-side fault stays on the host side.
        }
        return undefined;
      };
    const bridge = {
      log: new ivm.Callback(
        guarded((callId, level, message, data) =>
          handlers.log(String(callId), String(level), String(message), String(data)),
        ),
      ),
      progress: new ivm.Callback(
        guarded((callId, done, total, message) =>
          handlers.progress(String(callId), Number(done), Number(total), String(message)),
        ),
      ),
      request: new ivm.Callback(
        guarded((callId, requestId, capability, args) => {
          const id = Number(requestId);
          const call = String(callId);
          handlers
            .request(call, String(capability), String(args))
            .catch(() => JSON.stringify({ ok: false, error: 'the capability failed on the host' }))
            .then((reply) => this.#settle(id, reply, call));
        }),
      ),
      reply: new ivm.Callback(
        guarded((callId, replyJson) => {
          const waiter = this.#waiting.get(String(callId));
          this.#waiting.delete(String(callId));
          waiter?.(String(replyJson));
        }),
      ),
    };
    await context.evalClosure(
      `globalThis.${BRIDGE_GLOBAL} = { log: $0, progress: $1, request: $2, reply: $3 };`,
      [bridge.log, bridge.progress, bridge.request, bridge.reply],
    );
    const runtime = await this.#isolate.compileScript(runtimeScript, { filename: 'toolhost:runtime.js' });
    await runtime.run(context, { timeout: LOAD_TIMEOUT_MS });
    runtime.release();
    const entry = (await context.global.get(ENTRY_GLOBAL, { reference: true })) as ivm.Reference<
      Record<string, unknown>
    >;
    const pick = (name: string) => entry.get(name, { reference: true }) as Promise<EntryRef>;
    this.#entry = {
      begin: await pick('begin'),
      describe: await pick('describe'),
      settle: await pick('settle'),
      abort: await pick('abort'),
    };
    await context.global.delete(ENTRY_GLOBAL);
    // Plugin code runs only now, when the runtime has captured what it needs.
    const script = await this.#isolate.compileScript(bundle, { filename: 'plugin.js' });
    await this.#guard(
      () => script.run(context, { timeout: Math.min(this.#limits.timeoutMs, LOAD_TIMEOUT_MS) }),
      'load',
    );
    script.release();
  }

  get disposed(): boolean {
    return this.#isolate.isDisposed;
  }

  async describe(configJson: string): Promise<IsolateOutcome<DescribeReply>> {
    if (this.#breach !== undefined) return this.#breach;
    const entry = this.#entry;
    if (entry === undefined || this.#isolate.isDisposed) return GONE;
    try {
      const text = await this.#guard(
        () =>
          entry.describe.apply(undefined, [configJson], {
            arguments: { copy: true },
            result: { promise: true, copy: true },
            timeout: this.#limits.timeoutMs,
          }) as Promise<unknown>,
        'describe',
      );
      return typeof text === 'string'
        ? { kind: 'reply', reply: JSON.parse(text) as DescribeReply }
        : NON_STRING;
    } catch (error) {
      return this.#breachFrom(error);
    }
  }

  call(request: CallRequest): Promise<IsolateOutcome<CallReply>> {
    return this.#begin('call', `call:${request.toolName}`, request.callId, JSON.stringify(request), false);
  }

  hook(request: HookRequest): Promise<IsolateOutcome<HookReply>> {
    return this.#begin('hook', `hook:${request.phase}`, request.callId, JSON.stringify(request), false);
  }

  /**
   * A call or hook whose request is already JSON, answered with the reply's JSON text as the
   * runtime wrote it (the executor process passes both through; the host parses the reply).
   * `name` is the tool's name for a call, the phase for a hook.
   */
  text(kind: 'call' | 'hook', name: string, callId: string, json: string): Promise<IsolateOutcome<string>> {
    return this.#begin(kind, `${kind}:${name}`, callId, json, true);
  }

  /**
   * Starts a call or hook and waits for its reply: on the sync path when its tool has proved
   * quick (see {@link PROMOTE_CPU_MS}), returning at once when the reply came within the entry;
   * otherwise (and for what waits on the host) under the wall-clock deadline and CPU watchdog.
   */
  async #begin<R>(
    kind: 'call' | 'hook',
    key: string,
    callId: string,
    json: string,
    raw: boolean,
  ): Promise<IsolateOutcome<R>> {
    if (this.#breach !== undefined) return this.#breach;
    const entry = this.#entry;
    if (entry === undefined || this.#isolate.isDisposed) return GONE;
    let settled: string | LimitBreach | undefined;
    let wake: ((outcome: string | LimitBreach) => void) | undefined;
    this.#waiting.set(callId, (outcome) => {
      settled = outcome;
      wake?.(outcome);
    });
    this.#callKey.set(callId, key);
    const sync = this.#mode.get(key) === 'sync';
    const cpuBefore = sync ? 0n : this.#isolate.cpuTime;
    const alone = this.#active === 0;
    try {
      if (sync) {
        if (
          !this.#enterSync(key, () =>
            entry.begin.applySync(undefined, [kind, json], SYNC_ARGS(this.#syncBudget())),
          )
        ) {
          return this.#breach ?? GONE;
        }
        if (settled !== undefined) return outcomeOf<R>(settled, raw);
      } else {
        entry.begin
          .apply(undefined, [kind, json], { arguments: { copy: true }, timeout: this.#limits.timeoutMs })
          .catch((error: unknown) => {
            if (!this.#isolate.isDisposed) this.#fail(breachOf(error, this.#limits));
          });
      }
      const outcome = await this.#guard(
        () =>
          new Promise<string | LimitBreach>((resolve) => {
            if (settled !== undefined) resolve(settled);
            else wake = resolve;
          }),
        callId,
      );
      // A first call that used little CPU, alone in the isolate: its tool goes sync.
      if (!sync && alone && this.#active === 0 && !this.#mode.has(key) && typeof outcome === 'string') {
        if (Number(this.#isolate.cpuTime - cpuBefore) / 1e6 < PROMOTE_CPU_MS) this.#mode.set(key, 'sync');
      }
      return outcomeOf<R>(outcome, raw);
    } catch (error) {
      return this.#breachFrom(error);
    } finally {
      this.#waiting.delete(callId);
      this.#callKey.delete(callId);
    }
  }

  /** The longest a sync entry may hold the thread: the CPU budget, within the wall-clock limit. */
  #syncBudget(): number {
    return Math.min(this.#limits.cpuMs, this.#limits.timeoutMs);
  }

  /**
   * Runs a sync entry; a long one demotes its tool (`key`) to the async path. False when it ran
   * past its budget: the isolate is then reset with a `cpuMs` breach.
   */
  #enterSync(key: string, run: () => unknown): boolean {
    const started = performance.now();
    try {
      run();
    } catch (error) {
      const budget = this.#syncBudget();
      const breach = /timed out/i.test(messageOf(error))
        ? {
            kind: 'limit' as const,
            limit: 'cpuMs' as const,
            message: `the plugin ran synchronously past its CPU time limit (cpuMs: ${budget})`,
          }
        : breachOf(error, this.#limits);
      if (!this.#isolate.isDisposed || this.#breach === undefined) this.#fail(breach);
      return false;
    } finally {
      if (performance.now() - started > DEMOTE_MS) this.#mode.set(key, 'async');
    }
    return true;
  }

  #breachFrom(error: unknown): LimitBreach {
    if (this.#breach !== undefined) return this.#breach;
    const breach = breachOf(error, this.#limits);
    this.#fail(breach);
    return breach;
  }

  /** Aborts `ctx.signal` of a call in this isolate (best effort: the isolate may be gone). */
  abort(callId: string, reason: string): void {
    this.#entry?.abort
      .apply(undefined, [callId, reason], { timeout: this.#limits.timeoutMs })
      .catch(() => {});
  }

  /** Aborts a call's `ctx.signal` and waits for it, at most {@link ABORT_GRACE_MS}. */
  async #abortBriefly(callId: string, reason: string): Promise<void> {
    const entry = this.#entry;
    if (entry === undefined || this.#isolate.isDisposed) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ABORT_GRACE_MS);
    });
    try {
      await Promise.race([
        entry.abort.apply(undefined, [callId, reason], { timeout: ABORT_GRACE_MS }).catch(() => {}),
        grace,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  dispose(): void {
    if (this.#watchdog !== undefined) clearInterval(this.#watchdog);
    this.#watchdog = undefined;
    if (!this.#isolate.isDisposed) this.#isolate.dispose();
  }

  /** Answers a capability request: a sync entry when the call's tool is on the sync path. */
  #settle(requestId: number, replyJson: string, callId: string): void {
    const entry = this.#entry;
    if (this.#isolate.isDisposed || entry === undefined) return;
    const key = this.#callKey.get(callId);
    if (key !== undefined && this.#mode.get(key) === 'sync') {
      this.#enterSync(key, () =>
        entry.settle.applySync(undefined, [requestId, replyJson], SYNC_ARGS(this.#syncBudget())),
      );
      return;
    }
    entry.settle
      .apply(undefined, [requestId, replyJson], {
        arguments: { copy: true },
        timeout: this.#limits.timeoutMs,
      })
      .catch((error) => {
        // A continuation that spins past the timeout breaches like any synchronous loop.
        if (!this.#isolate.isDisposed) this.#fail(breachOf(error, this.#limits));
      });
  }

  /** Runs one entry call under the wall-clock deadline and the CPU watchdog. */
  async #guard<T>(start: () => Promise<T>, callId: string): Promise<T> {
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
          this.#fail({
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
      if (this.#active === 0 && this.#watchdog !== undefined) {
        clearInterval(this.#watchdog);
        this.#watchdog = undefined;
      }
    }
  }

  #startWatchdog(): void {
    if (this.#watchdog !== undefined) return;
    this.#watchdog = setInterval(() => {
      if (this.#isolate.isDisposed) return;
      const now = this.#isolate.cpuTime;
      for (const started of this.#callCpuStart.values()) {
        if (Number(now - started) / 1e6 > this.#limits.cpuMs) {
          this.#fail({
            kind: 'limit',
            limit: 'cpuMs',
            message: `the plugin used more CPU time than its limit (cpuMs: ${this.#limits.cpuMs})`,
          });
          return;
        }
      }
    }, WATCHDOG_MS);
    this.#watchdog.unref();
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
