import { defaultPollMicros } from '../util/hot-loop.js';
import type { ToolhostConfig } from './schema.js';

/** Where plugin and code-mode isolates live: a supervised executor process, or this process. */
export type SandboxMode = 'process' | 'inline';

/** `sandbox.jail` (see jail/types.ts `JailMode`): the OS jail around the executor process. */
export type JailSetting = 'auto' | 'required' | 'off';

/** The `sandbox` key, whichever of its two forms (`"process"`, or `{ "mode", "jail" }`) it was written in. */
export interface SandboxSetting {
  readonly mode: SandboxMode;
  readonly jail: JailSetting;
  /** `sandbox.pollMicros`, or the machine's default (util/hot-loop.ts `defaultPollMicros`). */
  readonly pollMicros: number;
}

/** The `sandbox` key as an object (its string form is the mode alone). */
export function sandboxObject(value: ToolhostConfig['sandbox']): Exclude<ToolhostConfig['sandbox'], string> {
  return typeof value === 'string' ? { mode: value } : value;
}

/** The sandbox settings of a config, defaults filled in: `process`, jailed where the system allows, the machine's polling. */
export function sandboxSettingOf(config: Pick<ToolhostConfig, 'sandbox'>): SandboxSetting {
  const value = sandboxObject(config.sandbox);
  return {
    mode: value?.mode ?? 'process',
    jail: value?.jail ?? 'auto',
    pollMicros: value?.pollMicros ?? defaultPollMicros(),
  };
}
