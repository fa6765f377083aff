import type { Executor } from './process-requests.js';
import { PING } from './process-requests.js';
import type { SandboxLimits } from './types.js';

/**
 * How long the executor may go without answering a ping: the heartbeat, plus the longest a sync
 * entry of a live plugin may legitimately hold its thread (its CPU budget, see plugin-isolate.ts),
 * so the heartbeat never kills a process doing a plugin's work within its budget.
 */
export function silenceAllowedMs(
  heartbeatMs: number,
  live: Iterable<{ readonly limits: SandboxLimits }>,
): number {
  let longest = 0;
  for (const entry of live) longest = Math.max(longest, Math.min(entry.limits.cpuMs, entry.limits.timeoutMs));
  return heartbeatMs + longest;
}

/** What the watch needs of its sandbox. */
export interface WatchedSandbox {
  /** The live executor process, if any. */
  current(): Executor | undefined;
  /** Requests are in flight. */
  busy(): boolean;
  /** No retirement now: the sandbox is closed or already retiring its executor. */
  settled(): boolean;
  silenceAllowedMs(): number;
  kill(executor: Executor): void;
  /** Ends the idle executor (the sandbox counts its isolates first). */
  retire(): void;
}

/**
 * The two clocks of an executor process: while requests are in flight it is pinged, and one that
 * stops answering is killed; with none for the isolates' idle time it is retired.
 *
 * An executor with no request for the isolates' idle time has evicted every isolate, but its
 * process keeps what V8 and malloc took (measured: ≈ 100 MB more than a fresh one after 100
 * plugins were called once): it is ended, so idle plugins cost nothing, and the next request
 * starts a new one (≈ 0.2 s: a process and the prelude) that loads every live version again.
 * Not a crash: nothing was in flight, and no plugin is charged.
 */
export class ExecutorWatch {
  readonly #heartbeatMs: number;
  readonly #sandbox: WatchedSandbox;
  #heartbeat: NodeJS.Timeout | undefined;
  #retire: NodeJS.Timeout | undefined;

  constructor(heartbeatMs: number, sandbox: WatchedSandbox) {
    this.#heartbeatMs = heartbeatMs;
    this.#sandbox = sandbox;
  }

  /** After every change of the requests in flight: pings while busy, a retirement timer while idle. */
  update(idleMs: number): void {
    const sandbox = this.#sandbox;
    const busy = sandbox.busy();
    this.retireWhenIdle(busy, idleMs);
    if (busy && this.#heartbeat === undefined) {
      const current = sandbox.current();
      if (current !== undefined) current.lastPong = Date.now();
      this.#heartbeat = setInterval(() => {
        const executor = sandbox.current();
        if (executor === undefined || !executor.ready || executor.ended !== undefined) return;
        if (Date.now() - executor.lastPong > sandbox.silenceAllowedMs()) {
          executor.killedBy = 'heartbeat';
          sandbox.kill(executor);
          return;
        }
        executor.writer.send(PING);
      }, this.#heartbeatMs / 5);
      this.#heartbeat.unref();
    } else if (!busy && this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  /** Retires the executor after `idleMs` without a request (restarted by every change). */
  retireWhenIdle(busy: boolean, idleMs: number): void {
    clearTimeout(this.#retire);
    this.#retire = undefined;
    if (busy || this.#sandbox.settled() || this.#sandbox.current() === undefined) return;
    this.#retire = setTimeout(() => this.#sandbox.retire(), idleMs);
    this.#retire.unref();
  }

  /** No retirement any more (the sandbox is closing). */
  stop(): void {
    clearTimeout(this.#retire);
  }
}
