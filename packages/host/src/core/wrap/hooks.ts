import type { Disposer, ToolHooks } from '../../types.js';

/**
 * An ordered list of hook registrations. `add` returns the disposer; `snapshot` hands out a copy,
 * so a hook that unregisters itself (or another) mid-run cannot make the run skip a neighbour.
 */
export class HookSet {
  #entries: ToolHooks[] = [];

  add(hooks: ToolHooks): Disposer {
    if (typeof hooks.name !== 'string' || hooks.name.trim() === '') {
      throw new TypeError('hooks need a non-empty name: it appears in the errors they cause');
    }
    const entry = { ...hooks };
    this.#entries = [...this.#entries, entry];
    return () => {
      this.#entries = this.#entries.filter((e) => e !== entry);
    };
  }

  snapshot(): readonly ToolHooks[] {
    return this.#entries;
  }
}
