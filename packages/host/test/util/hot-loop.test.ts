import { describe, expect, it } from 'vitest';
import { DEFAULT_POLL_MICROS, defaultPollMicros, HotLoop, PROBE_EVERY } from '../../src/util/hot-loop.js';

/** A loop whose turns run when the test says, on a clock the test moves (ms). */
function fakeLoop(micros: number, still: () => boolean = () => true) {
  const queue: (() => void)[] = [];
  let clock = 0;
  const loop = new HotLoop(
    micros,
    still,
    (turn) => queue.push(turn),
    () => clock,
  );
  return {
    loop,
    queued: () => queue.length,
    /** Moves the clock by `ms`, then runs the turn that is pending. */
    turn(ms = 0) {
      clock += ms;
      const next = queue.shift();
      if (next === undefined) throw new Error('no turn is pending');
      next();
    },
    advance(ms: number) {
      clock += ms;
    },
    /** `n` exchanges whose message comes `ms` after each keep(), no turn run between. */
    waits(n: number, ms: number) {
      for (let i = 0; i < n; i++) {
        loop.keep();
        clock += ms;
        loop.heard();
      }
    },
  };
}

describe('HotLoop', () => {
  it('polls turn after turn until its window from the last keep() has passed, then stops', () => {
    const t = fakeLoop(100); // 0.1 ms
    t.loop.keep();
    expect(t.loop.polling).toBe(true);
    t.turn(0.03);
    t.turn(0.03);
    t.turn(0.03);
    expect(t.loop.turns).toBe(3);
    expect(t.queued()).toBe(1);
    // 0.12 ms after keep(): past the window; this turn schedules no other.
    t.turn(0.03);
    expect(t.loop.turns).toBe(3);
    expect(t.loop.polling).toBe(false);
    expect(t.queued()).toBe(0);
  });

  it('a keep() while polling extends the window without starting a second chain of turns', () => {
    const t = fakeLoop(100);
    t.loop.keep();
    t.turn(0.08);
    t.loop.keep(); // now until 0.18
    expect(t.queued()).toBe(1);
    t.turn(0.05); // 0.13: still inside
    expect(t.queued()).toBe(1);
    t.turn(0.06); // 0.19: past it
    expect(t.queued()).toBe(0);
    expect(t.loop.turns).toBe(2);
  });

  it('stops as soon as `still` says there is nothing to wait for, however much window is left', () => {
    let waiting = true;
    const t = fakeLoop(1_000_000, () => waiting);
    t.loop.keep();
    t.turn();
    waiting = false;
    t.turn();
    expect(t.loop.polling).toBe(false);
    expect(t.queued()).toBe(0);
    expect(t.loop.turns).toBe(1);
  });

  it('a window of 0 never polls', () => {
    const t = fakeLoop(0);
    t.loop.keep();
    expect(t.loop.polling).toBe(false);
    expect(t.queued()).toBe(0);
  });

  it('polls again after a keep() that comes once it stopped', () => {
    const t = fakeLoop(100);
    t.loop.keep();
    t.turn(1);
    expect(t.loop.polling).toBe(false);
    t.advance(5);
    t.loop.keep();
    expect(t.loop.polling).toBe(true);
    t.turn(0.01);
    expect(t.loop.turns).toBe(1);
  });

  it('learns from the waits it sees: about twice their average, never past its limit', () => {
    const t = fakeLoop(100);
    expect(t.loop.windowMicros).toBe(100); // before any wait: the whole limit
    t.waits(60, 0.01); // the answer comes 10 µs later
    expect(t.loop.windowMicros).toBeGreaterThan(19);
    expect(t.loop.windowMicros).toBeLessThan(22);
    // Waits of 60 µs would ask for a 120 µs window: capped at the limit.
    t.waits(60, 0.06);
    expect(t.loop.windowMicros).toBe(100);
  });

  it('stops polling where the awaited message comes later than its limit, and starts again when it comes soon', () => {
    const t = fakeLoop(100);
    // serve's executor: the next request comes after the client's round trip, 300 µs.
    for (let i = 0; i < 30; i++) {
      t.loop.keep();
      while (t.queued() > 0) t.turn(0.3);
      t.loop.heard();
    }
    expect(t.loop.windowMicros).toBe(0);
    // The turn of the first waits' window (long past) ends the polling.
    while (t.queued() > 0) t.turn();
    t.loop.keep();
    expect(t.queued()).toBe(0);
    expect(t.loop.polling).toBe(false);
    // Still measured while it does not poll: quick exchanges bring it back.
    t.advance(0.01);
    t.loop.heard();
    t.waits(30, 0.01);
    expect(t.loop.windowMicros).toBeGreaterThan(0);
    t.loop.keep();
    expect(t.loop.polling).toBe(true);
  });

  it('an idle minute counts as a long wait, not as a minute: a few quick waits win it back', () => {
    const t = fakeLoop(100);
    // Long waits in a row (an agent's calls, seconds apart) stop the polling...
    let long = 0;
    while (t.loop.windowMicros > 0 && long < 50) {
      t.loop.keep();
      while (t.queued() > 0) t.turn(60_000);
      t.loop.heard();
      long += 1;
    }
    expect(long).toBeGreaterThan(1);
    expect(long).toBeLessThan(10);
    // ...and, each counted as twice the limit only, a few quick ones bring it back.
    let quick = 0;
    while (t.loop.windowMicros === 0 && quick < 50) {
      t.loop.keep();
      t.advance(0.01);
      t.loop.heard();
      quick += 1;
    }
    expect(quick).toBeLessThan(5);
  });

  it('a message that takes longer than the window because the other side works costs no points', () => {
    const t = fakeLoop(100);
    // Two slow tools in a row, 1 ms each: far past the window, not just after it.
    for (let i = 0; i < 2; i++) {
      t.loop.keep();
      while (t.queued() > 0) t.turn(1);
      t.loop.heard();
    }
    // The average (85 µs) still asks for a window, and no points were lost: it polls.
    expect(t.loop.windowMicros).toBeGreaterThan(0);
    t.loop.keep();
    expect(t.loop.polling).toBe(true);
  });

  it('stops polling when the message comes only after its window, probing now and then, and resumes when a probe pays', () => {
    const t = fakeLoop(100);
    /**
     * One exchange: keep(), then the message 50 µs later, heard while still polling (`paid`) or
     * only once the window ended (the other side could not run while this one polled). Returns
     * whether keep() polled.
     */
    const exchange = (paid: boolean) => {
      t.loop.keep();
      const polled = t.loop.polling;
      if (polled && !paid)
        t.turn(0.2); // the window ends first
      else t.advance(0.05);
      t.loop.heard();
      while (t.queued() > 0) t.turn(1); // nothing left pending between exchanges
      return polled;
    };
    expect(exchange(true)).toBe(true);
    expect(exchange(false)).toBe(true);
    expect(exchange(false)).toBe(true);
    // Out of points: one exchange in PROBE_EVERY probes.
    const polled: boolean[] = [];
    for (let i = 0; i < 2 * PROBE_EVERY; i++) polled.push(exchange(false));
    expect(polled.filter(Boolean).length).toBe(2);
    // The next probe pays: it polls again from then on.
    let probes = 0;
    while (probes < 2 * PROBE_EVERY && !exchange(true)) probes += 1;
    expect(probes).toBeLessThan(PROBE_EVERY);
    expect(exchange(true)).toBe(true);
    expect(exchange(true)).toBe(true);
  });

  it('a message heard with no keep() before it is no wait', () => {
    const t = fakeLoop(100);
    t.advance(5);
    t.loop.heard();
    expect(t.loop.windowMicros).toBe(100);
  });

  /**
   * A HotLoop on the real event loop (setImmediate, as by default) whose scheduler resolves
   * `stopped` once a turn ended the polling.
   */
  function realLoop(micros: number, still?: () => boolean) {
    let resolveStopped!: () => void;
    const stopped = new Promise<void>((resolve) => {
      resolveStopped = resolve;
    });
    const loop: HotLoop = new HotLoop(micros, still, (turn) =>
      setImmediate(() => {
        turn();
        if (!loop.polling) resolveStopped();
      }),
    );
    /** Resolves once the loop stopped; fails (instead of the test's timeout) when it never does. */
    const stop = async (withinMs = 5_000) => {
      let timer: NodeJS.Timeout | undefined;
      const never = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the loop did not stop within ${withinMs} ms`)), withinMs);
      });
      try {
        await Promise.race([stopped, never]);
      } finally {
        clearTimeout(timer);
      }
    };
    return { loop, stop };
  }

  // Both real-loop tests assert nothing that a stalled machine (the whole suite on two CPUs) can
  // break: a CI run once saw no turn inside a 10 ms window, whose end came before the first
  // setImmediate. What a window does turn by turn is pinned above on a fake clock.
  it('runs on the real event loop: turns go on while timers run, until `still` says stop', async () => {
    let timerRan = false;
    // A 2 s window that `still` ends as soon as a timer ran and a turn was polled.
    const { loop, stop } = realLoop(2_000_000, () => !(timerRan && loop.turns > 0));
    loop.keep();
    expect(loop.polling).toBe(true);
    const pollingWhenTimerRan = await new Promise<boolean>((resolve) =>
      setTimeout(() => {
        timerRan = true;
        resolve(loop.polling);
      }, 1),
    );
    expect(pollingWhenTimerRan).toBe(true);
    await stop();
    expect(loop.turns).toBeGreaterThan(0);
    const turns = loop.turns;
    expect(loop.polling).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(loop.turns).toBe(turns);
  });

  it('runs on the real event loop: stops by itself once its window has passed, not before', async () => {
    // Twice the starting average of half the limit: a 20 ms window.
    const { loop, stop } = realLoop(20_000);
    const started = performance.now();
    loop.keep();
    await stop();
    expect(performance.now() - started).toBeGreaterThanOrEqual(20);
    expect(loop.polling).toBe(false);
  });

  it('defaults to polling with two CPUs or more, and never with one', () => {
    expect(defaultPollMicros(1)).toBe(0);
    expect(defaultPollMicros(2)).toBe(DEFAULT_POLL_MICROS);
    expect(defaultPollMicros(64)).toBe(DEFAULT_POLL_MICROS);
  });
});
