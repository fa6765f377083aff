import { setMaxListeners } from 'node:events';
import ivm from 'isolated-vm';
import { messageOf } from '../util/errors.js';
import { scriptLimitHint as raise } from './script-outcomes.js';
import { CODE_RUNTIME } from './script-runtime.js';
import type { CodeModeLimits, CodeOutcome, CodeRunOptions } from './types.js';

/** How often the CPU watchdog samples the isolate's CPU time while a script waits on the host. */
const WATCHDOG_MS = 25;

/** The limit an isolated-vm failure means, worded for the model. */
function breachOf(error: unknown, limits: CodeModeLimits): CodeOutcome {
  const text = messageOf(error);
  if (/memory limit/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'memoryMb',
      message: `the script exceeded its memory limit ${raise('memoryMb', limits)}`,
    };
  }
  if (/timed out/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'cpuMs',
      message: `the script used more CPU time than its limit ${raise('cpuMs', limits)}`,
    };
  }
  return { kind: 'limit', limit: 'crashed', message: `the script's isolate failed: ${text}` };
}

/** Script isolates alive in this process now (see `IsolateStats.scripts`). */
let liveScripts = 0;

/** How many code-mode scripts' isolates are alive in this process now. */
export function liveScriptIsolates(): number {
  return liveScripts;
}

/**
 * Runs `source` (the body of an async function) in a fresh isolate of this process that is
 * disposed when the run ends: the host's (`InlineSandbox`) or the executor's (executor-main.ts,
 * where `callTool` sends each call back to the host). Bounded by the isolate's heap (`memoryMb`), its CPU time (`cpuMs`: isolated-vm's
 * `timeout` on each entry, plus a watchdog over the isolate's total), the wall clock
 * (`timeoutMs`: a promise that never settles) and the size of what it returns
 * (`maxResultChars`, checked inside the isolate before anything is copied out). Never rejects.
 */
export async function runCode(source: string, options: CodeRunOptions): Promise<CodeOutcome> {
  const { limits } = options;
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryMb });
  liveScripts += 1;
  // Aborted when the run ends, whatever ended it: tool calls still in flight are cancelled.
  const run = new AbortController();
  // Every tool call in flight listens on it until it ends (up to limits.codeMode.maxToolCalls at
  // once): not a leak, and Node's warning at 11 listeners would only be noise.
  setMaxListeners(0, run.signal);
  let finish!: (outcome: CodeOutcome) => void;
  const ended = new Promise<CodeOutcome>((resolve) => {
    finish = (outcome) => {
      if (run.signal.aborted) return;
      run.abort(outcome.kind === 'limit' ? outcome.message : 'the script ended');
      resolve(outcome);
    };
  });
  const onEntryError = (error: unknown) => finish(breachOf(error, limits));
  const deadline = setTimeout(
    () =>
      finish({
        kind: 'limit',
        limit: 'timeoutMs',
        message: `the script did not finish within its time limit ${raise('timeoutMs', limits)}`,
      }),
    limits.timeoutMs,
  );
  const cpuNs = BigInt(limits.cpuMs) * 1_000_000n;
  const watchdog = setInterval(() => {
    if (!isolate.isDisposed && isolate.cpuTime > cpuNs) {
      finish({
        kind: 'limit',
        limit: 'cpuMs',
        message: `the script used more CPU time than its limit ${raise('cpuMs', limits)}`,
      });
    }
  }, WATCHDOG_MS);
  const cancel = () => finish({ kind: 'limit', limit: 'cancelled', message: 'the script was cancelled' });
  options.signal?.addEventListener('abort', cancel, { once: true });
  if (options.signal?.aborted) cancel();
  const entryOptions = { arguments: { copy: true }, timeout: limits.cpuMs } as const;
  try {
    const context = await isolate.createContext();
    let settle: ivm.Reference<(...args: unknown[]) => unknown> | undefined;
    let calls = 0;
    // The only host functions in the isolate: strings and numbers in, nothing out, never a throw
    // (a host error and its stack must not reach the script). Each defers to the next turn: the
    // isolate is still inside the entry that called it.
    const call = new ivm.Callback((id: unknown, name: unknown, json: unknown) => {
      calls += 1;
      const over = calls > limits.maxToolCalls;
      setImmediate(() => {
        if (run.signal.aborted) return;
        if (over) {
          // Stops the run rather than failing the one call: a script that catches and retries
          // would otherwise keep the host busy until its CPU or wall-clock limit.
          finish({
            kind: 'limit',
            limit: 'maxToolCalls',
            message: `the script tried to make more tool calls than its limit ${raise('maxToolCalls', limits)}`,
          });
          return;
        }
        options
          .callTool(String(name), String(json), run.signal)
          .catch((error: unknown) => ({
            ok: false as const,
            message: `the call failed on the host: ${messageOf(error)}`,
          }))
          .then((reply) => {
            if (run.signal.aborted || settle === undefined) return;
            const payload = reply.ok ? reply.json : reply.message;
            settle.apply(undefined, [Number(id), reply.ok, payload], entryOptions).catch(onEntryError);
          });
      });
    });
    const done = new ivm.Callback((json: unknown, log: unknown, dropped: unknown) => {
      const output = { log: String(log), droppedLogChars: Number(dropped) };
      setImmediate(() => {
        const reply = JSON.parse(String(json)) as {
          ok: boolean;
          value?: unknown;
          error?: string;
          tooLarge?: number;
        };
        if (reply.tooLarge !== undefined) {
          finish({
            kind: 'limit',
            limit: 'maxResultChars',
            message: `the script's result is ${reply.tooLarge} characters, over its limit ${raise('maxResultChars', limits)}`,
          });
        } else if (reply.ok) {
          finish({ kind: 'returned', value: reply.value, ...output });
        } else {
          finish({ kind: 'threw', error: reply.error ?? 'the script failed', ...output });
        }
      });
    });
    const entry = (await context.evalClosure(
      CODE_RUNTIME,
      [call, done, limits.maxLogChars, limits.maxResultChars],
      {
        result: { reference: true },
        timeout: limits.cpuMs,
      },
    )) as ivm.Reference<Record<string, unknown>>;
    const start = (await entry.get('start', { reference: true })) as ivm.Reference<
      (...args: unknown[]) => unknown
    >;
    settle = (await entry.get('settle', { reference: true })) as ivm.Reference<
      (...args: unknown[]) => unknown
    >;
    let main: ivm.Reference<unknown>;
    try {
      const script = await isolate.compileScript(`(async function () {${source}\n})`, {
        filename: 'run_code.js',
      });
      main = (await script.run(context, {
        reference: true,
        timeout: limits.cpuMs,
      })) as ivm.Reference<unknown>;
    } catch (error) {
      if (isolate.isDisposed || /timed out/i.test(messageOf(error))) return breachOf(error, limits);
      // A syntax error: the model's to fix. (The header shares the script's first line, so line numbers are the script's.)
      return { kind: 'threw', error: `SyntaxError: ${messageOf(error)}`, log: '', droppedLogChars: 0 };
    }
    if (!run.signal.aborted) {
      start.apply(undefined, [main.derefInto()], { timeout: limits.cpuMs }).catch(onEntryError);
    }
    return await ended;
  } catch (error) {
    // Setting up failed: the isolate ran out of memory, or was cancelled while starting.
    finish(breachOf(error, limits));
    return await ended;
  } finally {
    clearTimeout(deadline);
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', cancel);
    run.abort('the script ended');
    if (!isolate.isDisposed) isolate.dispose();
    liveScripts -= 1;
  }
}
