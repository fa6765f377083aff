import type { JailMode } from '../jail/index.js';
import { InlineSandbox } from './inline.js';
import { ProcessSandbox } from './process.js';
import type { IsolateSettings, Sandbox } from './types.js';

/** The sandbox for a mode; see `PluginsOptions.sandbox` for what each gives and costs. */
export function createSandbox(
  mode: 'process' | 'inline',
  isolates?: IsolateSettings,
  jail: JailMode = 'auto',
  pollMicros?: number,
): Sandbox {
  const options = {
    jail,
    ...(isolates === undefined ? {} : { isolates }),
    ...(pollMicros === undefined ? {} : { pollMicros }),
  };
  return mode === 'inline' ? new InlineSandbox(isolates) : new ProcessSandbox(options);
}
