import { InlineSandbox } from './inline.js';
import { ProcessSandbox } from './process.js';
import type { Sandbox } from './types.js';

/** The sandbox for a mode; see `PluginsOptions.sandbox` for what each gives and costs. */
export function createSandbox(mode: 'process' | 'inline'): Sandbox {
  return mode === 'inline' ? new InlineSandbox() : new ProcessSandbox();
}
