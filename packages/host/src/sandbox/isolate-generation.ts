import type { PluginIsolate } from './plugin-isolate.js';
import type { SandboxLimits } from './types.js';

/** One loaded plugin version in an isolate pool, and the state of its isolate. */
export interface Generation {
  readonly bundle: string;
  readonly limits: SandboxLimits;
  isolate?: Promise<PluginIsolate>;
  /** `isolate` once it has settled, so that an unload disposes it in the same turn. */
  started?: { readonly from: Promise<PluginIsolate>; readonly isolate: PluginIsolate };
  retired: boolean;
  /** Calls that picked this generation and have not finished; counted before any await. */
  inFlight: number;
  /** When its last call or hook ended, or its isolate was asked for (the pool's clock). */
  lastUsed: number;
}

/** True when the generation's isolate is running and no call or hook is in it. */
export function isIdle(generation: Generation): boolean {
  const started = generation.started;
  return generation.inFlight === 0 && started !== undefined && started.from === generation.isolate;
}

/** Whether the generation's isolate already went on its own (a breach disposed it). */
export function isGone(generation: Generation): boolean {
  return generation.started?.isolate.disposed === true && generation.started.from === generation.isolate;
}

/** The least recently used idle generation among `housed`, if one is idle. */
export function oldestIdle(housed: Iterable<Generation>): Generation | undefined {
  let oldest: Generation | undefined;
  for (const generation of housed) {
    if (isIdle(generation) && (oldest === undefined || generation.lastUsed < oldest.lastUsed))
      oldest = generation;
  }
  return oldest;
}

/**
 * How often the pool looks for idle isolates: every quarter of the idle time, at least once a minute,
 * so an isolate goes between `idleMs` and `idleMs` plus that.
 */
export const sweepEveryMs = (idleMs: number) => Math.min(Math.max(idleMs / 4, 1), 60_000);
