/** One throughput burst's figures, per call unless named otherwise (bench/boundary.mjs). */
export interface BurstFigures {
  perSecond: number;
  hostUs: number;
  mainUs: number;
  /** The host's polling turns a call; undefined for a path whose host does not poll. */
  pollTurns?: number;
  childUs: number;
  /** This process's GC pauses during the burst, ms, and its full collections. */
  gcPauseMs: number;
  fullGcs: number;
}
/** A burst slower than this share of its path's median is shown with what it spent its time on. */
export declare const SLOW_BURST: number;
/** The bursts under SLOW_BURST × `median`, each with its speed over the median and the mean of the others. */
export declare function slowBursts(
  bursts: readonly BurstFigures[],
  median: number,
): { burst: BurstFigures; speed: number; typical: Partial<Omit<BurstFigures, 'perSecond'>> }[];
