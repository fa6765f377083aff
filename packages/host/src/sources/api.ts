import type { ToolDefinition } from '@toolhost/plugin-sdk';
import type { Disposer, RegisteredTool, SourceAdapter, ToolSource } from '../types.js';
import { Listeners } from '../util/listeners.js';
import { inProcessTool } from './in-process.js';

/**
 * What the host API hands in: custom tools (`customTools`, `addTool`), and whole sources from
 * elsewhere (`setSource`), keyed by kind and id. Every change is its own rebuild, at once.
 */
export class ApiSource implements SourceAdapter {
  readonly name = 'api';
  readonly #custom = new Map<symbol, RegisteredTool>();
  readonly #external = new Map<string, ToolSource>();
  readonly #changed = new Listeners<string>();

  constructor(definitions: readonly ToolDefinition[] = []) {
    for (const definition of definitions) this.#add(definition);
  }

  #add(definition: ToolDefinition): symbol {
    const key = Symbol(definition.name);
    this.#custom.set(key, inProcessTool(definition, { source: 'custom' }));
    return key;
  }

  /** Adds a custom tool; the disposer removes it. */
  addTool(definition: ToolDefinition): Disposer {
    const key = this.#add(definition);
    this.#changed.emit('api');
    return () => {
      if (this.#custom.delete(key)) this.#changed.emit('api');
    };
  }

  /** Replaces (or adds) sources keyed by kind and id, with one change. */
  setSources(sources: readonly ToolSource[]): void {
    for (const source of sources) this.#external.set(`${source.kind}:${source.id}`, source);
    this.#changed.emit('api');
  }

  removeSource(kind: ToolSource['kind'], id: string): void {
    if (this.#external.delete(`${kind}:${id}`)) this.#changed.emit('api');
  }

  async refresh(): Promise<boolean> {
    return false;
  }

  contributions(): readonly ToolSource[] {
    return [...this.#external.values(), { kind: 'custom', id: 'custom', tools: [...this.#custom.values()] }];
  }

  onChange(listener: (cause: string) => void): Disposer {
    return this.#changed.add(listener);
  }

  async close(): Promise<void> {}
}
