import { CODE_MODE_SOURCE_ID } from '../core/register/code-mode.js';
import type { RefreshReason, SourceAdapter, ToolSource } from '../types.js';
import { codeModeRegistryTools } from './tools.js';

/**
 * Code mode's tools as a source: always in the Map (so policy, listings and plan diffs see them),
 * visible only where code mode is on (see core/register/code-mode.ts). They never change.
 */
export class CodeModeSource implements SourceAdapter {
  readonly name = CODE_MODE_SOURCE_ID;
  readonly #contribution: readonly ToolSource[] = [
    { kind: 'builtin', id: CODE_MODE_SOURCE_ID, tools: codeModeRegistryTools() },
  ];

  async refresh(_reason: RefreshReason): Promise<boolean> {
    return false;
  }

  contributions(): readonly ToolSource[] {
    return this.#contribution;
  }

  onChange(): () => void {
    return () => {};
  }

  async close(): Promise<void> {}
}
