import { CODE_MODE_SOURCE_ID } from '../core/register/code-mode.js';
import type { RefreshReason, SourceAdapter, ToolSource } from '../types.js';
import { type CodePlacement, codeModeRegistryTools } from './tools.js';

/**
 * Code mode's tools as a source: always in the Map (so policy, listings and plan diffs see them),
 * visible only where code mode is on (see core/register/code-mode.ts), and bound to each session
 * that calls them (`bindToSession`; `placement` says where its scripts run). They never change.
 */
export class CodeModeSource implements SourceAdapter {
  readonly name = CODE_MODE_SOURCE_ID;
  readonly #contribution: readonly ToolSource[];

  constructor(placement?: CodePlacement) {
    this.#contribution = [
      { kind: 'builtin', id: CODE_MODE_SOURCE_ID, tools: codeModeRegistryTools(placement), optIn: true },
    ];
  }

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
