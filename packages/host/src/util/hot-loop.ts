import { availableParallelism } from 'node:os';

/**
 * How long, at most, a process of the sandbox keeps its event loop polling for a message due
 * soon, µs, by default (see {@link HotLoop}).
 */
export const DEFAULT_POLL_MICROS = 100;

/**
 * The polling limit a machine gets by default: {@link DEFAULT_POLL_MICROS} with two CPUs or more;
 * none with one, where a process that polls holds the only CPU the other one needs to answer.
 */
export function defaultPollMicros(cpus: number = availableParallelism()): number {
  return cpus >= 2 ? DEFAULT_POLL_MICROS : 0;
}

/** The event loop's next turn: `setImmediate` (a test passes its own). */
export type TurnScheduler = (turn: () => void) => void;

/** Weight of each new wait in the running estimate (an exponential moving average). */
const WEIGHT = 1 / 8;

/** Polling that the awaited message beat (heard while polling) earns a point, up to this. */
const MAX_SCORE = 8;

/** Polling it did not beat (heard just after the window) costs this many points. */
const MISS_COST = 2;

/**
 * At no points left, one `keep()` in this many polls all the same: a probe of whether it pays
 * again. Each probe that misses costs a whole window of CPU: at one in 16, where the processes
 * share a CPU, `serve` over stdio took 1.08-1.10× as long with polling as without
 * (bench/polling.mjs), and the process plugin 150-159 µs of CPU a sequential call in
 * bench/boundary.mjs against ≈ 102 without polling.
 */
export const PROBE_EVERY = 64;

/**
 * Keeps this process's event loop polling for a while after it sent something an answer (or a
 * next request) is due for, instead of sleeping until its next event: while an immediate is
 * pending, libuv polls for I/O without waiting, so a message that arrives then is read at the
 * next turn, and its writer wakes no sleeping process. Nothing is blocked meanwhile: timers, I/O
 * and isolates' callbacks run as usual.
 *
 * Why: a sequential call to a process-sandbox plugin crosses the pipe twice, and on a VM a write
 * that wakes a sleeping process costs both sides dearly. Measured on a 2-CPU Firecracker VM (its
 * idle CPUs halt at once, `guest_halt_poll_ns=0`), 5,000 sequential calls, echo plugin, jail off,
 * three rounds each (scratch load script; medians): neither side polling, p50 103-108 µs, CPU a
 * call host 45-48 µs + executor 54-62; both polling (100 µs then; 25-39 µs with the windows as
 * below), host 35-39 + executor 36-40 µs: less CPU in all, as the waking writes it spares cost
 * more than the polling turns.
 * Under load (64 and 5,000 in flight) the loop is busy anyway: throughput unchanged.
 *
 * How long: as long as the awaited message usually takes, learnt from the waits it saw (`heard`
 * after `keep`): twice their running average, up to `maxMicros`, and not at all while that average
 * is over `maxMicros` (polling would only burn CPU). A fixed window was wrong one way or the other:
 * the executor's next request comes ≈ 20 µs after its answer from an embedding host, but only
 * after the client's whole round trip (≥ 150 µs) under `serve`, where polling 100 µs held a CPU
 * serve and its client needed (three processes on two CPUs; sequential served calls, p50 212-278 µs
 * against 152-193 with the executor polling 25 µs).
 *
 * Whether: only while polling pays, i.e. the message comes while it still polls. Where it comes
 * just after the window, as soon as this process stopped polling, polling stops (one probe in
 * {@link PROBE_EVERY} tries again). That is the case when the other process shares this one's
 * CPU: this VM's scheduler packs tasks onto one vCPU (`sched_vcpu_pack`), where two polling
 * processes only take turns. In bench/boundary.mjs, when its one rotation of every path left the
 * processes idle most of the time (since 2026-12-07 each transport rotates on its own), the packed
 * pair answered a sequential process-plugin call in 46-57 µs without polling and in 80 µs polling
 * regardless.
 *
 * `still` ends a window early (the host stops once no request is in flight).
 */
export class HotLoop {
  readonly #max: number;
  readonly #still: () => boolean;
  readonly #schedule: TurnScheduler;
  readonly #now: () => number;
  /** The running average of the waits seen, µs: it starts at half the limit (a full window). */
  #average: number;
  /** When the last `keep()` was, ms, until the message it waited for is heard. */
  #keptAt: number | undefined;
  /** Whether the last `keep()` polled: its message, when heard, says whether that paid. */
  #tried = false;
  /** The window that `keep()` polled for, µs. */
  #triedWindow = 0;
  /** Points of polling that paid (see MAX_SCORE); at 0 it only probes. */
  #score = MISS_COST;
  #sinceProbe = 0;
  #until = 0;
  #polling = false;
  /** Turns polled so far (tests, benchmarks, the executor's stats). */
  turns = 0;

  constructor(
    maxMicros: number,
    still: () => boolean = () => true,
    schedule: TurnScheduler = (turn) => setImmediate(turn),
    now: () => number = () => performance.now(),
  ) {
    this.#max = maxMicros;
    this.#average = maxMicros / 2;
    this.#still = still;
    this.#schedule = schedule;
    this.#now = now;
  }

  /** The limit, µs (0: never polls). */
  get maxMicros(): number {
    return this.#max;
  }

  /** How long the next `keep()` polls, µs. */
  get windowMicros(): number {
    if (this.#max <= 0 || this.#average > this.#max) return 0;
    return Math.min(this.#max, 2 * this.#average);
  }

  /** Whether a polling turn is pending. */
  get polling(): boolean {
    return this.#polling;
  }

  /** Something was sent that a message is due for: polls for it (a window already open is extended). */
  keep(): void {
    if (this.#max <= 0) return;
    const now = this.#now();
    this.#keptAt = now;
    const window = this.windowMicros;
    this.#tried = window > 0 && (this.#score > 0 || ++this.#sinceProbe % PROBE_EVERY === 0);
    if (!this.#tried) return;
    this.#triedWindow = window;
    this.#until = now + window / 1000;
    if (this.#polling) return;
    this.#polling = true;
    this.#schedule(this.#turn);
  }

  /** The awaited message came: its wait, since the last `keep()`, goes into the estimate. */
  heard(): void {
    const keptAt = this.#keptAt;
    if (keptAt === undefined) return;
    this.#keptAt = undefined;
    const waited = (this.#now() - keptAt) * 1000;
    // A long wait (an idle minute, a slow tool) counts as twice the limit: a few in a row stop
    // the polling, and a return to quick exchanges is learnt within a few.
    this.#average += (Math.min(waited, 2 * this.#max) - this.#average) * WEIGHT;
    const tried = this.#tried;
    this.#tried = false;
    if (!tried) return;
    if (this.#polling) {
      // Heard while still polling: it paid.
      this.#score = Math.min(MAX_SCORE, this.#score + 1);
    } else if (waited <= 2 * this.#triedWindow) {
      // Heard just after the window: the other side answered as soon as this process stopped
      // polling, i.e. it could not run meanwhile (on this VM the scheduler may put both on one
      // CPU). A message that simply takes longer (a slow tool) only moves the average.
      this.#score = Math.max(0, this.#score - MISS_COST);
    }
  }

  readonly #turn = (): void => {
    if (this.#still() && this.#now() < this.#until) {
      this.turns += 1;
      this.#schedule(this.#turn);
    } else {
      this.#polling = false;
    }
  };
}
