import { describe, expect, it } from 'vitest';
import { type BurstFigures, SLOW_BURST, slowBursts } from '../../bench/lib/bursts.mjs';

/** A burst at `perSecond` calls/s whose other figures are all `figure` (polling turns when `polls`). */
function burst(perSecond: number, figure: number, polls = true): BurstFigures {
  return {
    perSecond,
    hostUs: figure,
    mainUs: figure,
    ...(polls ? { pollTurns: figure } : {}),
    childUs: figure,
    gcPauseMs: figure,
    fullGcs: figure,
  };
}

describe("boundary.mjs's slow bursts", () => {
  it('picks the bursts under SLOW_BURST of the median, with the mean of the others beside each', () => {
    const bursts = [burst(100, 1), burst(30, 9), burst(90, 3), burst(66, 7), burst(110, 2)];
    const slow = slowBursts(bursts, 90);
    // Under 0.67 × 90 = 60.3 calls/s: 30 is; 66 is not.
    expect(SLOW_BURST).toBe(0.67);
    expect(slow.map((s) => s.burst.perSecond)).toEqual([30]);
    expect(slow[0]?.speed).toBeCloseTo(30 / 90);
    // The others: 1, 3, 7 and 2, whatever the figure.
    for (const value of Object.values(slow[0]?.typical ?? {})) expect(value).toBeCloseTo(13 / 4);
    expect(Object.keys(slow[0]?.typical ?? {}).sort()).toEqual(
      ['childUs', 'fullGcs', 'gcPauseMs', 'hostUs', 'mainUs', 'pollTurns'].sort(),
    );
  });

  it('keeps the order of the bursts, and leaves a figure the path does not have undefined', () => {
    const bursts = [burst(20, 5, false), burst(100, 1, false), burst(10, 6, false), burst(100, 3, false)];
    const slow = slowBursts(bursts, 100);
    expect(slow.map((s) => s.burst.perSecond)).toEqual([20, 10]);
    expect(slow[0]?.typical.pollTurns).toBeUndefined();
    expect(slow[0]?.typical.hostUs).toBe(2);
  });

  it('finds none when every burst is near its median', () => {
    expect(slowBursts([burst(100, 1), burst(80, 1), burst(120, 1)], 100)).toEqual([]);
  });
});
