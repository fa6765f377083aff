/**
 * Sync entries: which tools (or hook phases) of one isolate are entered with `applySync`. Such an
 * entry often gets its reply before it returns, with no thread hand-off, timer or promise; but it
 * holds the thread it runs on (the host's own, inline; the executor's main thread), so only tools
 * that have shown they are quick get one.
 *
 * - A call on the async path for which the isolate spent under {@link PROMOTE_CPU_MS} of CPU, with
 *   no other call running there, sends its tool to the sync path.
 * - A sync entry that held the thread longer than {@link DEMOTE_MS}, by the clock and by the
 *   isolate's own CPU time, sends its tool back (on a busy machine a quick entry can be
 *   descheduled for milliseconds, and that is no reason to slow its tool down).
 *
 * How often a tool may stall its thread, per isolate: once for as long as its CPU budget (`cpuMs`,
 * the sync entry's timeout), after which it stays async; and besides, at most
 * {@link MAX_SHORT_STALLS} times in a row for under {@link SHORT_STALL_MS} each, after which it may
 * be promoted again. A short stall that comes {@link FORGIVE_AFTER_CALLS} sync entries or more
 * after the one before it starts the count again: under sustained load the isolate's collector
 * stalls a quick tool about once per 40,000 calls, and counting those for the isolate's whole
 * life sent every busy quick tool down the slow path for good after a few hundred thousand calls
 * (45,000 → 7,000 calls/s at 5,000 in flight). The short ones are V8 at work inside a quick tool — its optimizing compiler
 * tiers up the hot code once, a few hundred calls in, and a garbage collection runs now and then —
 * and sending the tool to the slow path for good on the first of them would cost every later call.
 * After a short stall the tool is undecided again: promoted by its next quick call that runs alone,
 * or else, under sustained concurrent load (where no call runs alone and an isolate's CPU cannot be
 * told apart per call), after {@link PROBATION_CALLS} calls on the async path. Without the second
 * way, one collection during a burst sent every later call of the burst down the slow path.
 *
 * Tools never judged whose calls come under load from the first (none ever runs alone: a server
 * started into traffic) are judged by the crowd: over {@link CROWD_ENTRIES} ended async entries of
 * undecided tools, a tool with `n` of them goes sync when the isolate's whole CPU time over them,
 * divided by `n`, is under {@link PROMOTE_CPU_MS}. That bounds its own average from above, whatever
 * else ran meanwhile (other tools, entries still in flight): an over-estimate, never an under-.
 * Before, such tools stayed on the async path, at half the calls/s, until a lull.
 */
export const PROMOTE_CPU_MS = 2;
export const DEMOTE_MS = 5;
export const SHORT_STALL_MS = 50;
export const MAX_SHORT_STALLS = 8;
export const PROBATION_CALLS = 100;
export const FORGIVE_AFTER_CALLS = 1_000;
export const CROWD_ENTRIES = 32;

export class EntryModes {
  /** `sync` once promoted; `async` for good; absent while undecided. */
  readonly #mode = new Map<string, 'sync' | 'async'>();
  /** Each tool's short stalls in a row, and its sync entries since the last one. */
  readonly #stalls = new Map<string, { count: number; since: number }>();
  /** Async calls left before a tool demoted by a short stall takes sync entries again. */
  readonly #probation = new Map<string, number>();

  isSync(key: string): boolean {
    return this.#mode.get(key) === 'sync';
  }

  /** Undecided tools' ended async entries, by tool, since the isolate's CPU time was `cpuMs`. */
  #crowd: { cpuMs: number; ended: number; byKey: Map<string, number> } | undefined;

  /** A sync entry of `key` began (counts toward forgiving its last short stall). */
  enteredSync(key: string): void {
    const stalls = this.#stalls.get(key);
    if (stalls !== undefined) stalls.since += 1;
  }

  /** Whether a call of an undecided tool should measure its CPU, to be judged by {@link afterAsyncEntry}. */
  undecided(key: string): boolean {
    return !this.#mode.has(key);
  }

  /** After an async entry that ran alone in the isolate and used `cpuMs` of it. */
  afterAsyncEntry(key: string, cpuMs: number): void {
    if (!this.#mode.has(key) && cpuMs < PROMOTE_CPU_MS) this.#promote(key);
  }

  /**
   * A call of `key` entered async, the isolate having used `cpuMs` of CPU so far (counts down a
   * probation; an undecided tool's opens a crowd when none is open, see above).
   */
  enteredAsync(key: string, cpuMs: number): void {
    if (this.#crowd === undefined && !this.#mode.has(key))
      this.#crowd = { cpuMs, ended: 0, byKey: new Map() };
    const left = this.#probation.get(key);
    if (left === undefined) return;
    if (left > 1) this.#probation.set(key, left - 1);
    else if (!this.#mode.has(key)) this.#promote(key);
  }

  /**
   * An async entry of `key` ended while others ran: begun when the isolate had used `startCpuMs`
   * of CPU, ended at `cpuMs`.
   */
  afterCrowdedEntry(key: string, startCpuMs: number, cpuMs: number): void {
    const crowd = this.#crowd;
    // Only an entry begun since the crowd opened: all of its CPU is in the crowd's.
    if (crowd === undefined || startCpuMs < crowd.cpuMs || this.#mode.has(key)) return;
    crowd.byKey.set(key, (crowd.byKey.get(key) ?? 0) + 1);
    crowd.ended += 1;
    if (crowd.ended < CROWD_ENTRIES) return;
    this.#crowd = undefined;
    const spent = cpuMs - crowd.cpuMs;
    for (const [tool, ended] of crowd.byKey) {
      if (spent / ended < PROMOTE_CPU_MS && !this.#mode.has(tool)) this.#promote(tool);
    }
  }

  #promote(key: string): void {
    this.#mode.set(key, 'sync');
    this.#probation.delete(key);
  }

  /** Whether a sync entry that held the thread `wallMs` needs its CPU time read ({@link afterLongSyncEntry}). */
  static mayBeLong(wallMs: number): boolean {
    return wallMs > DEMOTE_MS;
  }

  /** After a sync entry that took `cpuMs` of the isolate's CPU (and longer than DEMOTE_MS by the clock). */
  afterLongSyncEntry(key: string, cpuMs: number): void {
    if (cpuMs <= DEMOTE_MS) return;
    const last = this.#stalls.get(key);
    const stalls = last === undefined || last.since >= FORGIVE_AFTER_CALLS ? 1 : last.count + 1;
    this.#stalls.set(key, { count: stalls, since: 0 });
    if (cpuMs < SHORT_STALL_MS && stalls <= MAX_SHORT_STALLS) {
      this.#mode.delete(key);
      this.#probation.set(key, PROBATION_CALLS);
    } else {
      this.#mode.set(key, 'async');
      this.#probation.delete(key);
    }
  }
}
