import { availableParallelism } from 'node:os';

/**
 * How long a process of the sandbox keeps its event loop polling after its part of an exchange,
 * µs, by default (see {@link HotLoop}).
 */
export const DEFAULT_POLL_MICROS = 100;

/**
 * The polling window a machine gets by default: {@link DEFAULT_POLL_MICROS} with two CPUs or
 * more; none with one, where a process that polls holds the only CPU the other one needs to answer.
 */
export function defaultPollMicros(cpus: number = availableParallelism()): number {
  return cpus >= 2 ? DEFAULT_POLL_MICROS : 0;
}

/**
 * The executor's window after its answers, µs, at most: the host's turn from an answer to its next
 * sequential request takes ≈ 15-20 µs here. A longer one bought nothing there, and in `serve`,
 * where the next request comes only after the client's round trip, it only held a CPU that serve
 * and its client need (three processes on two CPUs). Interleaved with a plain MCP server over
 * stdio (scratch script, 100 blocks of 100 calls, host window 100 µs): the executor not polling,
 * p50 64-66 µs, mean 84; 25 µs, p50 27-31, mean 66-69; 100 µs, p50 26, mean 75 (p95 270 against
 * 185 at 25 µs).
 */
export const EXECUTOR_POLL_MICROS = 25;

/** The event loop's next turn: `setImmediate` (a test passes its own). */
export type TurnScheduler = (turn: () => void) => void;

/**
 * Keeps this process's event loop polling, for `micros` after the last `keep()`, instead of
 * sleeping until its next event: while an immediate is pending, libuv polls for I/O without
 * waiting, so a message that arrives then is read at the next turn, and its writer wakes no
 * sleeping process. Nothing is blocked meanwhile: timers, I/O and isolates' callbacks run as usual.
 *
 * Why: a sequential call to a process-sandbox plugin crosses the pipe twice, and on a VM a write
 * that wakes a sleeping process costs both sides dearly. Measured on a 2-CPU Firecracker VM (its
 * idle CPUs halt at once, `guest_halt_poll_ns=0`), 5,000 sequential calls, echo plugin, jail off,
 * three rounds each (scratch load script; medians): neither side polling, p50 103-108 µs, CPU a
 * call host 45-48 µs + executor 54-62; the executor polling 50 µs after its answers, 70-81 µs;
 * both (the host 100 µs while it waits for an answer), 25-31 µs with host 35-39 + executor
 * 36-40 µs: less CPU in all, as the waking writes it spares cost more than the polling turns.
 * Under load (64 and 5,000 in flight) the loop is busy anyway: throughput unchanged.
 *
 * `still` ends the window early (the host stops once no request is in flight).
 */
export class HotLoop {
  readonly #micros: number;
  readonly #still: () => boolean;
  readonly #schedule: TurnScheduler;
  readonly #now: () => number;
  #until = 0;
  #polling = false;
  /** Turns polled so far (tests, benchmarks, the executor's stats). */
  turns = 0;

  constructor(
    micros: number,
    still: () => boolean = () => true,
    schedule: TurnScheduler = (turn) => setImmediate(turn),
    now: () => number = () => performance.now(),
  ) {
    this.#micros = micros;
    this.#still = still;
    this.#schedule = schedule;
    this.#now = now;
  }

  /** The window, µs (0: never polls). */
  get micros(): number {
    return this.#micros;
  }

  /** Whether a polling turn is pending. */
  get polling(): boolean {
    return this.#polling;
  }

  /** Polls until `micros` from now (a window already open is extended, not doubled). */
  keep(): void {
    if (this.#micros <= 0) return;
    this.#until = this.#now() + this.#micros / 1000;
    if (this.#polling) return;
    this.#polling = true;
    this.#schedule(this.#turn);
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
