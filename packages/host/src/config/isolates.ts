import type { ToolhostConfig } from './schema.js';

/**
 * When a plugin's isolate goes while its version stays loaded; the next call re-creates it from
 * the same bundle and limits, with the plugin's module-scope state fresh.
 */
export interface IsolateSettings {
  /** An isolate with no call or hook for this long is disposed, ms. */
  readonly idleMs: number;
  /**
   * Most plugin isolates alive at once in one process; creating one more disposes the least
   * recently used idle one (an isolate with calls running is never disposed: it goes when they end).
   */
  readonly maxLive: number;
}

/**
 * Five minutes idle: an agent's turns come seconds to a minute apart, so a plugin in use keeps its
 * isolate (and its warm JIT), while one called once in a session gives its memory back soon.
 * 128 live: an isolate with the shared prelude costs ≈ 4–5 MB once called (bench/scale.mjs), so
 * the cap holds the executor near 0.7 GB at the very worst and a host with 1,000 plugins, all
 * called, under 1 GB with the host process; a model rarely uses 128 plugins within five minutes.
 */
export const DEFAULT_ISOLATE_SETTINGS: IsolateSettings = { idleMs: 300_000, maxLive: 128 };

/** The isolate settings of a config (`isolates`), defaults filled in. */
export function isolateSettingsOf(config: ToolhostConfig): IsolateSettings {
  const isolates = config.isolates;
  return {
    idleMs:
      isolates?.idleSeconds === undefined ? DEFAULT_ISOLATE_SETTINGS.idleMs : isolates.idleSeconds * 1000,
    maxLive: isolates?.maxLive ?? DEFAULT_ISOLATE_SETTINGS.maxLive,
  };
}
