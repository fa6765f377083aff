import type { CapabilityReply } from '@toolhost/plugin-sdk/protocol';
import type { Cancellation } from '../util/cancel.js';
import { messageOf } from '../util/errors.js';
import { withoutHostPaths } from '../util/host-paths.js';
import { sleepUnlessAborted } from '../util/sleep.js';
import { CallLogGate, type CallLogOptions, DEFAULT_LOG_LIMITS, type LogWindows } from './log-budget.js';
import type { CallSinks, CapabilityRunner, IsolateHandlers } from './types.js';

/**
 * The host's side of one call's callbacks, shared by both sandboxes: the inline one hands them
 * to the isolate pool here, the process one to the frames its executor sends (process.ts).
 */

/** The handlers of one call, found by call id when the isolate calls back. */
export interface CallHandlers {
  log(level: string, message: string, dataJson: string): void;
  progress(done: number, total: number, message: string): void;
  /** Resolves with a JSON `CapabilityReply`. */
  request(capability: string, argsJson: string): Promise<string>;
  /** The call has ended: its pending sleeps (plugin timers) stop on the host too. */
  end?(): void;
}

/** A call's log caps (its request's, else the defaults) and its plugin's window. */
export function callLogs(
  windows: LogWindows,
  pluginId: string,
  limits: CallLogOptions['limits'] | undefined,
): CallLogOptions {
  return { limits: limits ?? DEFAULT_LOG_LIMITS, plugin: { id: pluginId, window: windows.of(pluginId) } };
}

function parseData(json: string): unknown {
  if (json === '') return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/**
 * `ctx.sleep` (and every plugin timer) runs on a host timer that dies with the call — when it is
 * aborted, and when it ends (`CallHandlers.end`): a sleep pending at its end never resolves.
 */
function sleepFor(args: unknown, signal: AbortSignal): Promise<void> {
  const ms = Number((args as { ms?: unknown } | null)?.ms);
  if (!Number.isFinite(ms) || ms < 0)
    return Promise.reject(new Error('ctx.sleep(ms) needs a non-negative number'));
  return sleepUnlessAborted(ms, signal);
}

/** The `code` plugin code reads on a failed capability request (see `CapabilityError.pluginCode`). */
function pluginCodeOf(error: unknown): { code?: string } {
  const code = (error as { pluginCode?: unknown } | null)?.pluginCode;
  return typeof code === 'string' ? { code } : {};
}

/**
 * Turns host-side sinks and a capability runner into the handlers the isolate pool calls. Log
 * lines pass the call's {@link CallLogGate} (made on the first line: most calls log none) before
 * their data is parsed; when the call ends, a marker line says what the gate dropped.
 */
export function callHandlers(
  sinks: CallSinks,
  capabilities: CapabilityRunner | undefined,
  cancel: Cancellation,
  logs: CallLogOptions = { limits: DEFAULT_LOG_LIMITS },
): CallHandlers {
  let gate: CallLogGate | undefined;
  /** Aborted when the call ends; made on the call's first sleep, as most calls never sleep. */
  let ended: AbortController | undefined;
  let sleepSignal: AbortSignal | undefined;
  const signalForSleep = () => {
    if (sleepSignal === undefined) {
      ended = new AbortController();
      sleepSignal = AbortSignal.any([cancel.signal, ended.signal]);
    }
    return sleepSignal;
  };
  return {
    end: () => {
      ended?.abort();
      const marker = gate?.marker();
      if (marker !== undefined) sinks.log('warn', marker, undefined);
    },
    log: (level, message, data) => {
      gate ??= new CallLogGate(logs);
      const line = gate.admit(message, data);
      if (line !== undefined) sinks.log(level, line.message, parseData(line.dataJson));
    },
    progress: (done, total, message) =>
      sinks.progress(done, total < 0 ? undefined : total, message === '' ? undefined : message),
    request: async (capability, argsJson) => {
      let reply: CapabilityReply;
      try {
        if (capability === 'sleep') {
          await sleepFor(JSON.parse(argsJson), signalForSleep());
          return JSON.stringify({ ok: true, value: null });
        }
        if (capabilities === undefined)
          throw new Error(`ctx capability "${capability}" is not available in hooks`);
        reply = { ok: true, value: await capabilities(capability, JSON.parse(argsJson), cancel.signal) };
      } catch (error) {
        const code = pluginCodeOf(error);
        // A capability's own errors are worded for plugins; anything else may be Node's, with a host path.
        const text = code.code === undefined ? withoutHostPaths(messageOf(error)) : messageOf(error);
        reply = { ok: false, error: text, ...code };
      }
      return JSON.stringify(reply);
    },
  };
}

const refuse = (text: string) => Promise.resolve(JSON.stringify({ ok: false, error: text }));

/** An isolate's callbacks, each handed to the handlers of the call it names (an isolate pool's `calls`). */
export function handlersByCall(calls: ReadonlyMap<string, CallHandlers>): IsolateHandlers {
  return {
    log: (callId, level, message, data) => calls.get(callId)?.log(level, message, data),
    progress: (callId, done, total, message) => calls.get(callId)?.progress(done, total, message),
    request: (callId, capability, args) => {
      const handlers = calls.get(callId);
      // A capability used after its call ended (an un-awaited promise, a stray timer) is refused.
      if (handlers === undefined)
        return refuse(`ctx capability "${capability}" was used after its call ended`);
      return handlers.request(capability, args);
    },
  };
}

/**
 * The calls running in a process, by call id, counting each one that came or ended: an isolate
 * spare waits for a pause in them (isolate-spare.ts). Made empty: the constructor's entries
 * would be counted before `changes` exists.
 */
export class RunningCalls extends Map<string, CallHandlers> {
  /** Calls that came or ended so far. */
  changes = 0;

  override set(callId: string, handlers: CallHandlers): this {
    this.changes += 1;
    return super.set(callId, handlers);
  }

  override delete(callId: string): boolean {
    const had = super.delete(callId);
    if (had) this.changes += 1;
    return had;
  }

  override clear(): void {
    if (this.size > 0) this.changes += 1;
    super.clear();
  }
}
