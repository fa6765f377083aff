import { describe, expect, it } from 'vitest';
import {
  CROWD_ENTRIES,
  DEMOTE_MS,
  EntryModes,
  FORGIVE_AFTER_CALLS,
  MAX_SHORT_STALLS,
  PROBATION_CALLS,
  PROMOTE_CPU_MS,
  SHORT_STALL_MS,
} from '../../src/sandbox/entry-modes.js';

describe('EntryModes: which tools take sync entries', () => {
  it('promotes a tool whose async entry was quick, and leaves a slow one undecided', () => {
    const modes = new EntryModes();
    modes.afterAsyncEntry('slow', PROMOTE_CPU_MS + 1);
    expect(modes.isSync('slow')).toBe(false);
    expect(modes.undecided('slow')).toBe(true);
    modes.afterAsyncEntry('quick', PROMOTE_CPU_MS / 2);
    expect(modes.isSync('quick')).toBe(true);
    expect(modes.undecided('quick')).toBe(false);
  });

  it('ignores an entry long by the clock but short in the isolate (descheduled, not busy)', () => {
    const modes = new EntryModes();
    modes.afterAsyncEntry('t', 0);
    modes.afterLongSyncEntry('t', DEMOTE_MS);
    expect(modes.isSync('t')).toBe(true);
  });

  it('a stall of its CPU budget sends the tool to the async path for good', () => {
    const modes = new EntryModes();
    modes.afterAsyncEntry('t', 0);
    modes.afterLongSyncEntry('t', SHORT_STALL_MS);
    expect(modes.isSync('t')).toBe(false);
    expect(modes.undecided('t')).toBe(false);
    modes.afterAsyncEntry('t', 0);
    expect(modes.isSync('t')).toBe(false);
  });

  it(`short stalls (V8 tiering up, a collection) may re-promote a tool ${MAX_SHORT_STALLS} times, then not`, () => {
    const modes = new EntryModes();
    for (let stall = 1; stall <= MAX_SHORT_STALLS; stall++) {
      modes.afterAsyncEntry('t', 0);
      expect(modes.isSync('t')).toBe(true);
      modes.afterLongSyncEntry('t', DEMOTE_MS + 1);
      expect(modes.isSync('t')).toBe(false);
      expect(modes.undecided('t')).toBe(true);
    }
    modes.afterAsyncEntry('t', 0);
    modes.afterLongSyncEntry('t', DEMOTE_MS + 1);
    expect(modes.undecided('t')).toBe(false);
    modes.afterAsyncEntry('t', 0);
    expect(modes.isSync('t')).toBe(false);
  });

  it(`a short stall ${FORGIVE_AFTER_CALLS} sync entries after the last one starts the count again: a busy quick tool stays sync`, () => {
    const modes = new EntryModes();
    for (let stall = 1; stall <= MAX_SHORT_STALLS * 3; stall++) {
      modes.afterAsyncEntry('t', 0);
      for (let call = 0; call < FORGIVE_AFTER_CALLS; call++) modes.enteredSync('t');
      modes.afterLongSyncEntry('t', DEMOTE_MS + 1);
      expect(modes.undecided('t')).toBe(true);
    }
    // Close together, they count up to the limit as before.
    for (let stall = 1; stall <= MAX_SHORT_STALLS; stall++) {
      modes.afterAsyncEntry('t', 0);
      for (let call = 0; call < FORGIVE_AFTER_CALLS - 2; call++) modes.enteredSync('t');
      modes.afterLongSyncEntry('t', DEMOTE_MS + 1);
    }
    expect(modes.undecided('t')).toBe(false);
    expect(modes.isSync('t')).toBe(false);
  });

  it(`after a short stall, ${PROBATION_CALLS} async calls promote the tool again though none ran alone`, () => {
    const modes = new EntryModes();
    modes.afterAsyncEntry('t', 0);
    modes.afterLongSyncEntry('t', DEMOTE_MS + 1);
    for (let call = 1; call < PROBATION_CALLS; call++) modes.enteredAsync('t', 0);
    expect(modes.isSync('t')).toBe(false);
    modes.enteredAsync('t', 0);
    expect(modes.isSync('t')).toBe(true);
    // A tool never promoted is on no probation: async calls alone do not promote it.
    for (let call = 0; call <= PROBATION_CALLS; call++) modes.enteredAsync('new', 0);
    expect(modes.isSync('new')).toBe(false);
  });

  it('a long stall ends a probation: the tool stays async for good', () => {
    const modes = new EntryModes();
    modes.afterAsyncEntry('t', 0);
    modes.afterLongSyncEntry('t', DEMOTE_MS + 1);
    modes.afterAsyncEntry('t', 0);
    modes.afterLongSyncEntry('t', SHORT_STALL_MS);
    for (let call = 0; call <= PROBATION_CALLS; call++) modes.enteredAsync('t', 0);
    expect(modes.isSync('t')).toBe(false);
  });

  /**
   * `count` async entries that run in a crowd, one after another, each using `cpuEach` ms of the
   * isolate's CPU; their tools in turn from `keys`. Answers the isolate's CPU time after them.
   */
  function crowd(modes: EntryModes, keys: string[], count: number, cpuEach: number, cpuFrom = 0): number {
    let cpu = cpuFrom;
    for (let i = 0; i < count; i++) {
      const key = keys[i % keys.length] as string;
      const start = cpu;
      modes.enteredAsync(key, start);
      cpu += cpuEach;
      modes.afterCrowdedEntry(key, start, cpu);
    }
    return cpu;
  }

  it(`judges a tool whose calls never run alone by ${CROWD_ENTRIES} crowded entries: quick on average, it goes sync`, () => {
    const modes = new EntryModes();
    const cpu = crowd(modes, ['quick'], CROWD_ENTRIES - 1, PROMOTE_CPU_MS / 4);
    expect(modes.isSync('quick')).toBe(false);
    crowd(modes, ['quick'], 1, PROMOTE_CPU_MS / 4, cpu);
    expect(modes.isSync('quick')).toBe(true);
  });

  it('leaves a tool undecided whose crowded entries use PROMOTE_CPU_MS each or more', () => {
    const modes = new EntryModes();
    crowd(modes, ['heavy'], CROWD_ENTRIES * 4, PROMOTE_CPU_MS);
    expect(modes.isSync('heavy')).toBe(false);
    expect(modes.undecided('heavy')).toBe(true);
  });

  it('promotes quick tools called in a mix: the whole CPU over each one’s entries bounds its average', () => {
    const modes = new EntryModes();
    crowd(modes, ['a', 'b', 'c'], CROWD_ENTRIES, 0.01);
    expect(['a', 'b', 'c'].map((key) => modes.isSync(key))).toEqual([true, true, true]);
  });

  it('promotes no tool of a mix whose CPU could be its own: a heavy neighbour keeps a quick tool undecided', () => {
    const modes = new EntryModes();
    // Every other entry is the heavy tool's: all the CPU counted against each tool's 16 entries.
    let cpu = 0;
    for (let i = 0; i < CROWD_ENTRIES; i++) {
      const [key, spent] = i % 2 === 0 ? ['heavy', PROMOTE_CPU_MS * 2] : ['quick', 0.01];
      const start = cpu;
      cpu += spent as number;
      modes.enteredAsync(key as string, start);
      modes.afterCrowdedEntry(key as string, start, cpu);
    }
    expect(modes.isSync('heavy')).toBe(false);
    expect(modes.isSync('quick')).toBe(false);
  });

  it('counts only entries begun since the crowd opened: a heavy call that ran before cannot look quick', () => {
    const modes = new EntryModes();
    // A heavy tool's entries all ran (their CPU spent) before a crowd opened at 1,000 ms, and end after.
    modes.enteredAsync('quick', 1_000);
    for (let i = 0; i < CROWD_ENTRIES; i++) modes.afterCrowdedEntry('heavy', 0, 1_000);
    expect(modes.isSync('heavy')).toBe(false);
  });

  it('only an entry longer than DEMOTE_MS by the clock is worth reading the CPU time of', () => {
    expect(EntryModes.mayBeLong(DEMOTE_MS)).toBe(false);
    expect(EntryModes.mayBeLong(DEMOTE_MS + 0.1)).toBe(true);
  });
});
