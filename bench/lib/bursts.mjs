// Which throughput bursts of a path were slow, and what its other bursts looked like beside them:
// bench/boundary.mjs prints these so that a slow burst says what it spent its time on.

/** A burst slower than this share of its path's median is shown with what it spent its time on. */
export const SLOW_BURST = 0.67;

/** The per-call figures of a burst that the slow ones are compared on. */
const FIGURES = ['hostUs', 'mainUs', 'pollTurns', 'childUs', 'gcPauseMs', 'fullGcs'];

/**
 * The bursts under `SLOW_BURST` × `median` calls/s, in their order, each with its speed as a share
 * of the median and `typical`: the mean of every figure over the path's other bursts (a figure a
 * burst does not have, such as the polling turns of a path that does not poll, stays undefined).
 */
export function slowBursts(bursts, median) {
  const typical = bursts.filter((b) => b.perSecond >= median * SLOW_BURST);
  const mean = Object.fromEntries(
    FIGURES.map((figure) => {
      const values = typical.map((b) => b[figure]);
      const known = values.length > 0 && values.every((value) => value !== undefined);
      return [figure, known ? values.reduce((sum, value) => sum + value, 0) / values.length : undefined];
    }),
  );
  return bursts
    .filter((b) => b.perSecond < median * SLOW_BURST)
    .map((burst) => ({ burst, speed: burst.perSecond / median, typical: mean }));
}
