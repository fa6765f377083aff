/**
 * The runtime inside a plugin's isolate. It is evaluated (bundled as one script, the prelude)
 * *before* the plugin's bundle: it captures the intrinsics it relies on and leaves one global, the
 * one-shot attach entry, which the host calls with the bridge right after making the context and
 * which removes itself; the host gets the runtime's entry functions from it. Plugin code can later
 * tamper with globals, but only inside its own isolate: everything that leaves is one string (JSON,
 * or a text reply: protocol.ts), made here inside the host's time limit and checked again by the
 * host.
 *
 * The prelude is usually evaluated once per process, while V8 takes a snapshot of it (the host's
 * sandbox/prelude.ts), not in each isolate. Its top level must therefore hold no host function
 * (the bridge comes at attach), draw no randomness (it would repeat in every isolate), create no
 * `Intl` object (V8 aborts the snapshot) and leave alone what V8 installs only in a finished
 * context: `WebAssembly`, `SharedArrayBuffer`, `Error.stackTraceLimit` and the newest builtins
 * (`Promise.try`, …) are absent while it runs, and defining some of them makes V8 abort whenever
 * it makes a context from the snapshot. prelude-snapshot.test.ts (host) checks the result.
 */
import { contextFor, signalOf } from './context.js';
import { clearCallTimers, installGlobals } from './globals/index.js';
import {
  ErrorCtor,
  getPrototypeOf,
  global,
  PromiseCtor,
  PromiseProto,
  parse,
  promiseThen,
  StringCtor,
  stringify,
} from './intrinsics.js';
import { type LogBudget, logBudget, logDataJson, logLine, logMarker, logRoom as logRoom_ } from './logs.js';
import {
  ATTACH_GLOBAL,
  BRIDGE_CALLBACKS,
  type CallRequest,
  type CapabilityReply,
  type HookReply,
  type HookRequest,
  type LogCaps,
  type RuntimeAttach,
  type RuntimeBridge,
  type RuntimeEntry,
} from './protocol.js';
import { describe, parseConfig, type RegisteredTool, requirePlugin } from './registration.js';
import { failure, finishCall, type Outgoing, seal } from './replies.js';
import { readRequest } from './requests.js';
import { cappedStringify, clip, issuesOf, isThenable } from './values.js';

// A plugin-installed stack formatter would run whenever any error is created, including ours.
Object.defineProperty(ErrorCtor, 'prepareStackTrace', {
  value: undefined,
  writable: false,
  configurable: false,
});
const unattached = (): never => {
  throw new ErrorCtor('the toolhost runtime is not attached to its host yet');
};
/** The host's callbacks: the host attaches them (see `attach`, at the end) before plugin code runs. */
let bridge: RuntimeBridge = {
  log: unattached,
  progress: unattached,
  request: unattached,
  reply: unattached,
  entropy: unattached,
};

// ---- per-call state: signals, pending capability requests -------------------------------------

interface CallState {
  ended: boolean;
  aborted: boolean;
  reason: unknown;
  listeners: (() => void)[];
  /** Its log caps, from its request. */
  logCaps?: Partial<LogCaps> | undefined;
  /** Its log lines so far, against its caps; made on its first line (most calls log none). */
  logs?: LogBudget;
}

const calls = new Map<string, CallState>();
const pending = new Map<
  number,
  { resolve: (value: unknown) => void; reject: (error: Error) => void; callId: string }
>();
let nextRequest = 1;

function request(callId: string, capability: string, args: unknown): Promise<unknown> {
  return new PromiseCtor((resolve, reject) => requestRaw(callId, capability, args, resolve, reject));
}

/** Starts a capability request; its callbacks are dropped, never run, once the call has ended. */
function requestRaw(
  callId: string,
  capability: string,
  args: unknown,
  resolve: (value: unknown) => void,
  reject: (error: Error) => void,
): void {
  const state = calls.get(callId);
  if (state === undefined || state.ended) {
    reject(new ErrorCtor(`ctx.${capability} was used after its call ended`));
    return;
  }
  const id = nextRequest++;
  pending.set(id, { resolve, reject, callId });
  bridge.request(callId, id, capability, stringify(args === undefined ? null : args));
}

// ---- the web-standard globals (globals/) and what they need of the runtime ---------------------

/**
 * The call whose code runs now: set when an entry starts work for a call (its start, a capability
 * reply, a timer), and kept for the microtasks that entry runs. Code of an ended call sees none.
 */
let current: string | undefined;

/** Log lines written outside any call (at load, or after their call ended), for the next call. */
const orphanLogs: { level: string; message: string }[] = [];
const MAX_ORPHAN_LOGS = 20;

function currentCall(): string | undefined {
  return current !== undefined && calls.has(current) ? current : undefined;
}

function flushOrphanLogs(callId: string): void {
  for (const line of orphanLogs.splice(0)) {
    sendLog(callId, line.level, `[logged outside a call] ${line.message}`, '');
  }
}

/** Sets a call's log caps from its request (lines logged before, such as orphans, count on). */
function limitLogs(callId: string, caps: Partial<LogCaps> | undefined): void {
  const state = calls.get(callId);
  if (state === undefined || caps === undefined) return;
  state.logCaps = caps;
  if (state.logs !== undefined) state.logs = logBudget(caps, state.logs);
}

/** A running call's log budget; none for an ended call, whose lines go nowhere. */
function budgetOf(callId: string): LogBudget | undefined {
  const state = calls.get(callId);
  if (state === undefined) return undefined;
  state.logs ??= logBudget(state.logCaps);
  return state.logs;
}

/** Whether a running call may log one more line (counted as dropped when not). */
function logRoom(callId: string): boolean {
  const budget = budgetOf(callId);
  return budget !== undefined && logRoom_(budget);
}

/** Sends one log line of a running call, within its caps (logs.ts). */
function sendLog(callId: string, level: string, message: string, dataJson: string): void {
  const budget = budgetOf(callId);
  const line = budget === undefined ? undefined : logLine(budget, message, dataJson);
  if (line !== undefined) bridge.log(callId, level, line.message, line.dataJson);
}

/** Says what a call dropped, in one line, before it ends. */
function sendLogMarker(callId: string): void {
  const budget = calls.get(callId)?.logs;
  const marker = budget === undefined ? undefined : logMarker(budget);
  if (marker !== undefined) bridge.log(callId, 'warn', marker, '');
}

installGlobals(global, {
  currentCall,
  request: requestRaw,
  running: (callId) => calls.has(callId),
  entropy: () => StringCtor(bridge.entropy()),
  logRoom,
  log(callId, level, message) {
    if (callId !== undefined) sendLog(callId, level, message, '');
    else if (orphanLogs.length < MAX_ORPHAN_LOGS) orphanLogs.push({ level, message: clip(message, 4000) });
  },
});

function logger(callId: string) {
  const send = (level: string) => (message: unknown, data?: unknown) => {
    const budget = budgetOf(callId);
    if (budget === undefined || !logRoom_(budget)) return;
    sendLog(callId, level, StringCtor(message), logDataJson(data, budget.lineBytes));
  };
  return { debug: send('debug'), info: send('info'), warn: send('warn'), error: send('error') };
}

/**
 * Runs one call. A tool whose `execute` returns its value (not a promise) is answered at once,
 * within the host's entry, with no microtask in between; one that returns a promise is awaited.
 */
function runCall(req: CallRequest): Outgoing | Promise<Outgoing> {
  limitLogs(req.callId, req.logs);
  const plugin = requirePlugin();
  const tool = plugin.tools.find((t) => t.name === req.toolName);
  if (tool === undefined) return { kind: 'unknown-tool' };
  const config = parseConfig(plugin, req.config);
  if (!config.ok) return { kind: 'invalid-config', issues: config.issues };
  // The host has validated the input against this schema's JSON Schema already, and refused it
  // there when it failed (in the validator's words, with no trip in here). This parse is kept for
  // what `execute` is promised: the value zod makes (its defaults, transforms and coercions, which
  // JSON Schema cannot carry), and the checks JSON Schema cannot state (refinements, formats,
  // patterns RE2 cannot run), which only it can refuse. It costs well under a microsecond; the
  // trip into the isolate it rides on costs microseconds (bench/call-path.mjs).
  const input = tool.input.safeParse(req.input);
  if (!input.success) return { kind: 'invalid-input', issues: issuesOf(input) };
  const state = calls.get(req.callId) as CallState;
  const returned = tool.execute(
    input.data,
    contextFor(
      req,
      {
        log: logger(req.callId),
        signal: signalOf(state),
        progress: (callId, done, total, message) => bridge.progress(callId, done, total, message),
        request,
      },
      config.value,
    ),
  );
  return isThenable(returned) ? settleCall(tool, req, returned) : finishCall(tool, req, returned);
}

async function settleCall(
  tool: RegisteredTool,
  req: CallRequest,
  returned: PromiseLike<unknown>,
): Promise<Outgoing> {
  return finishCall(tool, req, await returned);
}

function endCall(callId: string): void {
  const state = calls.get(callId);
  if (state !== undefined) state.ended = true;
  calls.delete(callId);
  clearCallTimers(callId);
  for (const [id, entry] of pending) {
    if (entry.callId === callId) pending.delete(id);
  }
}

async function runHook(req: HookRequest): Promise<HookReply> {
  limitLogs(req.callId, req.logs);
  const plugin = requirePlugin();
  const config = parseConfig(plugin, req.config);
  if (!config.ok) throw new ErrorCtor('the plugin config is invalid');
  const fn = req.phase === 'before' ? plugin.hooks?.beforeToolCall : plugin.hooks?.afterToolCall;
  const verdict =
    fn === undefined ? undefined : await fn(req.event, { config: config.value, log: logger(req.callId) });
  return {
    kind: 'ok',
    verdict: verdict === undefined ? null : parse(cappedStringify(verdict, req.maxReplyChars)),
  };
}

/** Ends a call or hook: its reply as one sealed string. */
function ended(callId: string, reply: Outgoing, maxChars: number): string {
  sendLogMarker(callId);
  endCall(callId);
  return typeof reply === 'string' ? reply : seal(reply, maxChars);
}

/** Ends a call or hook that waited, and sends its reply. */
function finish(callId: string, reply: Outgoing, maxChars: number): void {
  bridge.reply(callId, ended(callId, reply, maxChars));
}

/**
 * Runs one call or hook as a tracked call (its signal, its capability requests) and turns any
 * throw into an error reply. Work that finishes without waiting is answered by the return value
 * (no trip back to the host through the bridge); other work replies through the bridge.
 */
function track(
  callId: string,
  maxChars: number,
  work: () => Outgoing | Promise<Outgoing>,
): string | undefined {
  calls.set(callId, { ended: false, aborted: false, reason: undefined, listeners: [] });
  current = callId;
  if (orphanLogs.length > 0) flushOrphanLogs(callId);
  let outcome: Outgoing | Promise<Outgoing>;
  try {
    outcome = work();
  } catch (error) {
    return ended(callId, failure(error, maxChars), maxChars);
  }
  // By its prototype, captured, not `instanceof`: plugin code can redefine Promise[Symbol.hasInstance].
  if (typeof outcome === 'string' || getPrototypeOf(outcome) !== PromiseProto) {
    return ended(callId, outcome as Outgoing, maxChars);
  }
  // `then` as captured: plugin code may have replaced Promise.prototype.then by now. The promise
  // is the runtime's own (an async function's), so it settles exactly once.
  promiseThen.call(
    outcome,
    (reply: Outgoing) => finish(callId, reply, maxChars),
    (error: unknown) => finish(callId, failure(error, maxChars), maxChars),
  );
  return undefined;
}

const entry: RuntimeEntry = {
  describe,

  begin(kind, requestJson) {
    const req = readRequest(requestJson);
    const callId = StringCtor(req.callId);
    return track(callId, req.maxReplyChars, kind === 'hook' ? () => runHook(req) : () => runCall(req));
  },

  settle(requestId, replyJson) {
    const entry = pending.get(requestId);
    if (entry === undefined) return;
    pending.delete(requestId);
    current = entry.callId;
    const reply = parse(replyJson) as CapabilityReply;
    if (reply.ok) entry.resolve(reply.value);
    else {
      const error = new ErrorCtor(reply.error) as Error & { code?: string };
      if (typeof reply.code === 'string') error.code = reply.code;
      entry.reject(error);
    }
  },

  abort(callId, reason) {
    const state = calls.get(callId);
    if (state === undefined || state.aborted) return;
    state.aborted = true;
    state.reason = new ErrorCtor(reason);
    for (const listener of state.listeners) {
      try {
        listener();
      } catch {
        // A listener's fault is the plugin's own; the abort still reaches the others.
      }
    }
  },
};

let attached = false;

/** The one-shot attach entry (`RuntimeAttach`): called by the host once, before any plugin code. */
const attach: RuntimeAttach = (...callbacks) => {
  delete global[ATTACH_GLOBAL];
  if (attached) throw new ErrorCtor('the toolhost runtime is attached already');
  const given: Record<string, unknown> = {};
  BRIDGE_CALLBACKS.forEach((name, i) => {
    if (typeof callbacks[i] !== 'function') throw new ErrorCtor(`the bridge's ${name} is not a function`);
    given[name] = callbacks[i];
  });
  attached = true;
  bridge = given as unknown as RuntimeBridge;
  // WebAssembly memory is not counted by the isolate's memory limit; plugins do without it. V8
  // installs it in every context it makes, one made from a snapshot too: deleted here, not above.
  delete global.WebAssembly;
  return entry;
};
global[ATTACH_GLOBAL] = attach;
