/**
 * What the process sandbox (process.ts) asks its executor besides plugin calls: a code-mode
 * script's run, and the isolates' stats, whose eviction counts go on across the executors it
 * retired when idle.
 */

import { setMaxListeners } from 'node:events';
import { asCancellation, CancelSource } from '../util/cancel.js';
import type { ToExecutor } from './ipc.js';
import type { Outcome, Pending, ScriptRun } from './process-requests.js';
import { scriptEnd } from './process-requests.js';
import { scriptLimit } from './script-outcomes.js';
import type { CodeOutcome, CodeRunOptions, IsolateSettings, IsolateStats } from './types.js';

/** What a request says of itself beyond its frame. */
export type RequestAbout = Pick<
  Pending,
  'plugin' | 'sinks' | 'logs' | 'capabilities' | 'cancel' | 'script' | 'prelude'
>;

/** How the sandbox sends a request and cancels one (process.ts). */
export interface Requests {
  request<R>(
    head: (id: number) => ToExecutor,
    body: string,
    about?: RequestAbout,
    onSettled?: () => void,
  ): Promise<R>;
  abort(id: number, reason: unknown): void;
}

/** Runs a code-mode script in the executor; its tool calls come back to the host (executor-frames.ts). */
export function runScriptThrough(
  requests: Requests,
  source: string,
  options: CodeRunOptions,
): Promise<CodeOutcome> {
  const cancel = options.signal === undefined ? new CancelSource() : asCancellation(options.signal);
  if (cancel.aborted) return Promise.resolve(scriptLimit('cancelled', 'the script was cancelled'));
  const ended = new AbortController();
  // Every tool call of the run in flight listens on it (up to maxToolCalls): not a leak.
  setMaxListeners(0, ended.signal);
  const script: ScriptRun = { options, signal: ended.signal, calls: 0 };
  let id = 0;
  const onAbort = (reason: unknown) => {
    // Its tool calls here end now, not when the executor's answer comes.
    ended.abort(reason);
    requests.abort(id, reason);
  };
  const stopListening = cancel.onAbort(onAbort);
  return requests
    .request<Outcome>(
      (assigned) => {
        id = assigned;
        return { t: 'script', id: assigned, limits: options.limits };
      },
      source,
      { cancel, script },
      () => {
        stopListening();
        ended.abort('the script ended');
      },
    )
    .then(scriptEnd);
}

/** The isolates' eviction counts of the executors retired when idle (a crashed one's are lost with it). */
export class RetiredEvictions {
  #before = { idle: 0, cap: 0 };

  /** Counts a retiring executor's evictions; the isolates still live there go for idleness. */
  retired(outcome: Outcome): void {
    if (outcome.kind !== 'stats') return;
    const { live, evicted } = outcome.stats;
    this.#before = { idle: this.#before.idle + evicted.idle + live, cap: this.#before.cap + evicted.cap };
  }

  /** The stats when no executor answers. */
  none(settings: IsolateSettings): IsolateStats {
    return { live: 0, ...settings, evicted: { ...this.#before }, scripts: 0 };
  }

  /** The live executor's stats (`rss` read on the host when it is jailed), counting the retired ones' evictions. */
  stats(outcome: Outcome, settings: IsolateSettings, rss: () => number | undefined): IsolateStats {
    if (outcome.kind !== 'stats') return this.none(settings);
    const { evicted, memory } = outcome.stats;
    const resident = rss();
    return {
      ...outcome.stats,
      ...(resident === undefined || memory === undefined ? {} : { memory: { ...memory, rss: resident } }),
      evicted: { idle: evicted.idle + this.#before.idle, cap: evicted.cap + this.#before.cap },
    };
  }
}
