/**
 * The deferral face of a session: the tool lists a client takes (`tools(shape, {deferral})`), what
 * is deferred and what searches loaded, the search itself and the client-side search answers.
 * `Session` extends it, so these stay the session's own methods; the state behind them is one
 * `SessionCatalog` (session-catalog.ts), which reads the session through the methods below that
 * `Session` implements.
 */
import type { ToolDescriptor } from '@toolhost/plugin-sdk';
import type { Disposer } from '../../types.js';
import type { SearchHit } from '../search/index.js';
import type { AnthropicToolResultBlock } from './adapters/anthropic.js';
import type { OpenAIResponseItem, OpenAIToolSearchOutput } from './adapters/openai.js';
import {
  type ActivationResult,
  type CatalogSnapshot,
  type DeferredToolShapes,
  SessionCatalog,
  type ToolShapes,
  type ToolsOptions,
} from './session-catalog.js';

export abstract class SessionDeferral {
  /** Deferral: what is deferred, what searches loaded, and each client's shape of the list. */
  protected readonly catalog: SessionCatalog;

  /** `searchLoads`: false when a search returns definitions and loads nothing (`SessionOptions.searchLoads`). */
  protected constructor(searchLoads: boolean) {
    // Read lazily, at each question: the session's state is set up after this constructor.
    this.catalog = new SessionCatalog({
      snapshot: () => this.catalogSnapshot(),
      active: () => this.activeSet(),
      descriptors: () => this.descriptors(),
      check: (name) => this.check(name),
      searchLoads,
    });
  }

  /** The snapshot in force, as this session sees it. */
  protected abstract catalogSnapshot(): CatalogSnapshot;
  /** The session's active set; its identity changes whenever the set does. */
  protected abstract activeSet(): ReadonlySet<string> | undefined;
  /** Descriptors of the tools handed to the model. */
  abstract descriptors(): readonly ToolDescriptor[];
  /** Whether `name` may be called in this session now. */
  abstract check(name: string): { readonly ok: boolean };

  /**
   * The active, visible tools in the shape a model API or MCP client takes, deferred tools handed
   * over as `options.deferral` says (see `DeferralModes`). An unknown shape or mode (a typo,
   * or a name from plain JavaScript) throws a TypeError listing the valid ones.
   */
  tools<K extends keyof ToolShapes>(shape: K): ToolShapes[K][];
  tools<K extends keyof ToolShapes>(shape: K, options: ToolsOptions<K>): DeferredToolShapes[K][];
  tools<K extends keyof ToolShapes>(shape: K, options: ToolsOptions<K> = {}): DeferredToolShapes[K][] {
    return this.catalog.list(shape, options);
  }

  /** The names of this session's tools deferred now, in plan order; deferral never changes what may be called. */
  deferredTools(): string[] {
    return this.catalog.deferred();
  }

  /** Names a tool search has loaded into this session's list, in load order. */
  loadedTools(): string[] {
    return this.catalog.loaded();
  }

  /** Searches the tools this session may call now, deferred or not, best first; loads nothing. */
  search(query: string, limit = 5): SearchHit[] {
    return this.catalog.search(query, limit);
  }

  /** Loads deferred tools into this session's list; names that cannot be called now are skipped. */
  load(names: readonly string[]): ActivationResult {
    return this.catalog.load(names);
  }

  /** Calls `listener` whenever a search or `load` adds tools to this session's list. */
  onToolsChanged(listener: () => void): Disposer {
    return this.catalog.onChanged(listener);
  }

  /** The Anthropic client-side search answer: `tool_reference` blocks naming what matched. */
  toolSearchResult(toolUseId: string, input: unknown): AnthropicToolResultBlock {
    return this.catalog.toolSearchResult(toolUseId, input);
  }

  /**
   * Answers every client-executed `tool_search_call` item of a Responses API output with its
   * `tool_search_output` item (for `tools('openai-responses', {deferral: 'client'})`). Never throws.
   */
  dispatchOpenAIToolSearch<Item extends OpenAIResponseItem>(
    output: readonly Item[],
  ): OpenAIToolSearchOutput[] {
    return this.catalog.openAIToolSearch(output);
  }
}
