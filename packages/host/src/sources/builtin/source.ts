import type { RefreshReason, RegisteredTool, SourceAdapter, ToolSource } from '../../types.js';
import { createBuiltinTools } from './index.js';
import type { BuiltinToolsOptions } from './types.js';

/**
 * The built-in tools as a source. Disabled built-ins are still created, so policy records them
 * as `policy-denied` and "where is my tool?" has an answer. They change only with the settings.
 */
export class BuiltinSource implements SourceAdapter {
  readonly name = 'builtin';
  readonly #options: () => BuiltinToolsOptions;
  #tools: readonly RegisteredTool[];

  /** `options` is read again at each settings change (the config may have changed them). */
  constructor(options: () => BuiltinToolsOptions) {
    this.#options = options;
    this.#tools = createBuiltinTools(options());
  }

  async refresh(reason: RefreshReason): Promise<boolean> {
    if (reason.kind === 'start' || reason.kind === 'files') return false;
    this.#tools = createBuiltinTools(this.#options());
    return true;
  }

  contributions(): readonly ToolSource[] {
    return [{ kind: 'builtin', id: 'builtin', tools: this.#tools }];
  }

  onChange(): () => void {
    return () => {};
  }

  async close(): Promise<void> {}
}
