/**
 * One session's deferral state: which of its tools are deferred, what its searches loaded, the
 * search indexes, the meta `tool_search` it runs like any tool, and the list each client takes
 * (tool-shapes.ts says the shapes). `SessionDeferral` is its face on the session.
 */
import type { ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import type { Disposer, RegisteredTool, Registry, ToolPolicy } from '../../types.js';
import { createToolIndex, type SearchHit, type ToolIndex } from '../search/index.js';
import { errorResult } from '../wrap/results.js';
import { type AnthropicToolResultBlock, toAnthropicToolResult } from './adapters/anthropic.js';
import {
  type OpenAIResponseItem,
  type OpenAIToolSearchOutput,
  toOpenAIResponsesDeferredTool,
} from './adapters/openai.js';
import { clientToolSearchCallsOf } from './adapters/requests.js';
import {
  CALL_TOOL_NAME,
  callToolDescriptor,
  deferredNames,
  parseSearchInput,
  type SearchHandover,
  searchableOf,
  TOOL_SEARCH_NAME,
  toolSearchDescriptor,
} from './deferral.js';
import {
  type DeferredToolShapes,
  deferralModes,
  nativeList,
  shapeConverters,
  type ToolShapes,
  type ToolsOptions,
} from './tool-shapes.js';

/** What a catalog needs of a host snapshot (a session's `HostSnapshot` is one). */
export interface CatalogSnapshot {
  readonly registry: Registry;
  readonly policy: ToolPolicy;
}

export type { DeferralModes, DeferredToolShapes, ToolShapes, ToolsOptions } from './tool-shapes.js';

/** The outcome of activating or loading tools by name. */
export interface ActivationResult {
  /** Names now active (they exist in the Map; some may be hidden right now). */
  readonly active: readonly string[];
  /** Names that exist nowhere, or (for `load`) cannot be called now: skipped. */
  readonly skipped: readonly string[];
}

/**
 * What a session works out once per snapshot and active set about deferral: which of its tools
 * are deferred, and the search indexes (built on first use).
 */
interface Catalog {
  readonly snapshot: CatalogSnapshot;
  readonly active: ReadonlySet<string> | undefined;
  readonly descriptors: readonly ToolDescriptor[];
  readonly deferred: ReadonlySet<string>;
  all?: ToolIndex;
  deferredOnly?: ToolIndex;
}

/** What a session's catalog reads of its session, each time it is asked. */
export interface CatalogOwner {
  snapshot(): CatalogSnapshot;
  /** The session's active set (its identity changes whenever the set does). */
  active(): ReadonlySet<string> | undefined;
  /** The descriptors the session hands the model (see `Session.descriptors`). */
  descriptors(): readonly ToolDescriptor[];
  check(name: string): { readonly ok: boolean };
  /** False: a search returns definitions and loads nothing (the list never changes by a search). */
  readonly searchLoads: boolean;
}

/**
 * One session's deferral state and the lists built from it: which of its tools are deferred, what
 * its searches loaded (in load order), the search indexes, and each client's shape of the list
 * (`session.tools(shape, {deferral})`). The session delegates to it; it holds no tool of its own
 * but the meta search, which the session's wrapper runs like any tool.
 */
export class SessionCatalog {
  readonly #owner: CatalogOwner;
  /** Deferred tools a search loaded into this session's list, in the order they were loaded. */
  readonly #loaded = new Set<string>();
  readonly #listChanged = new Set<() => void>();
  #cache: Catalog | undefined;
  #metaSearchTool: RegisteredTool | undefined;
  /** How `dispatch` answers `tool_search`: set by the last `list('anthropic', …)`. */
  searchAnswer: 'text' | 'references' = 'text';

  constructor(owner: CatalogOwner) {
    this.#owner = owner;
  }

  /**
   * The active, visible tools in the shape a model API or MCP client takes. An unknown shape
   * (a typo, or a name from plain JavaScript) throws a TypeError listing the shapes.
   */
  list<K extends keyof ToolShapes>(shape: K, options: ToolsOptions<K> = {}): DeferredToolShapes[K][] {
    if (typeof shape !== 'string' || !Object.hasOwn(shapeConverters, shape)) {
      throw new TypeError(
        `session.tools(${JSON.stringify(shape)}): unknown tool format; use one of ${Object.keys(shapeConverters).join(', ')}`,
      );
    }
    const mode = options.deferral ?? 'meta';
    const modes = deferralModes[shape] as readonly string[];
    if (!modes.includes(mode)) {
      throw new TypeError(
        `session.tools(${JSON.stringify(shape)}, {deferral: ${JSON.stringify(mode)}}): unknown deferral mode for this format; use one of ${modes.join(', ')}`,
      );
    }
    if (shape === 'anthropic') this.searchAnswer = mode === 'client' ? 'references' : 'text';
    const catalog = this.#current();
    const convert = shapeConverters[shape] as (d: ToolDescriptor) => DeferredToolShapes[K];
    if (mode === 'none' || catalog.deferred.size === 0) return catalog.descriptors.map(convert);
    if (mode === 'meta') return this.#metaList(catalog, shape === 'mcp').map(convert);
    return nativeList(
      shape,
      mode,
      catalog.descriptors,
      catalog.deferred,
      this.#shadowsSearch(catalog),
    ) as DeferredToolShapes[K][];
  }

  /**
   * Meta mode: the tools not deferred (plan order), then the search tool, then what searches
   * loaded (load order), so the list only ever grows at its end and prompt caches keep hitting.
   * `withCallTool` (MCP): `call_tool` follows the search tool, so a client that cached its list
   * still reaches what a search found.
   */
  #metaList(catalog: Catalog, withCallTool: boolean): ToolDescriptor[] {
    const byName = new Map<string, ToolDescriptor>();
    const list: ToolDescriptor[] = [];
    for (const d of catalog.descriptors) {
      if (catalog.deferred.has(d.name)) byName.set(d.name, d);
      else list.push(d);
    }
    if (this.#shadowsSearch(catalog)) {
      throw new TypeError(
        `A tool named "${TOOL_SEARCH_NAME}" exists in this session, so its tool search cannot be added; rename that tool or use {deferral: 'none'}`,
      );
    }
    list.push(toolSearchDescriptor(this.#handover(), withCallTool));
    if (withCallTool) list.push(callToolDescriptor());
    for (const name of this.#loaded) {
      const d = byName.get(name);
      if (d !== undefined) list.push(d);
    }
    return list;
  }

  #handover(): SearchHandover {
    return this.#owner.searchLoads ? 'load' : 'return';
  }

  #shadowsSearch(catalog: Catalog): boolean {
    return catalog.snapshot.registry.tools.has(TOOL_SEARCH_NAME);
  }

  /** The deferral state for the current snapshot and active set. */
  #current(): Catalog {
    const snapshot = this.#owner.snapshot();
    const cached = this.#cache;
    if (cached !== undefined && cached.snapshot === snapshot && cached.active === this.#owner.active())
      return cached;
    const descriptors = this.#owner.descriptors();
    const fresh: Catalog = {
      snapshot,
      active: this.#owner.active(),
      descriptors,
      deferred: deferredNames(descriptors, snapshot.registry.tools, snapshot.policy),
    };
    this.#cache = fresh;
    return fresh;
  }

  /**
   * The names of this session's tools that are deferred now (shown only once a search finds
   * them), in plan order. Deferral never changes what may be called.
   */
  deferred(): string[] {
    return [...this.#current().deferred];
  }

  /** Names a tool search has loaded into this session's list, in load order. */
  loaded(): string[] {
    return [...this.#loaded];
  }

  /**
   * Searches the tools this session may call now (visible, active, allowed), best first; `limit`
   * defaults to 5. Finds tools whether deferred or not, and loads nothing.
   */
  search(query: string, limit = 5): SearchHit[] {
    const catalog = this.#current();
    catalog.all ??= createToolIndex(catalog.descriptors.map(searchableOf));
    return catalog.all.search(query, limit).filter((hit) => this.#owner.check(hit.name).ok);
  }

  /** Searches the deferred tools only: what a tool search may hand the model. */
  #searchDeferred(query: string, limit: number): SearchHit[] {
    const catalog = this.#current();
    catalog.deferredOnly ??= createToolIndex(
      catalog.descriptors.filter((d) => catalog.deferred.has(d.name)).map(searchableOf),
    );
    return catalog.deferredOnly.search(query, limit).filter((hit) => this.#owner.check(hit.name).ok);
  }

  /**
   * Loads deferred tools into this session's list (meta mode shows them from now on). Names that
   * cannot be called now are skipped; loading never makes a tool callable that was not.
   * Listeners of `onToolsChanged` hear of it when the list grew.
   */
  load(names: readonly string[]): ActivationResult {
    const active: string[] = [];
    const skipped: string[] = [];
    let grew = false;
    for (const name of new Set(names)) {
      if (!this.#owner.check(name).ok) {
        skipped.push(name);
        continue;
      }
      active.push(name);
      if (!this.#loaded.has(name)) {
        this.#loaded.add(name);
        grew = true;
      }
    }
    if (grew) for (const listener of [...this.#listChanged]) listener();
    return { active, skipped };
  }

  /** Calls `listener` whenever a search or `load` adds tools to this session's list. */
  onChanged(listener: () => void): Disposer {
    this.#listChanged.add(listener);
    return () => {
      this.#listChanged.delete(listener);
    };
  }

  /**
   * The Anthropic client-side search answer: a `tool_result` whose content is `tool_reference`
   * blocks naming the deferred tools that match `input.query` (they must be in `tools` with
   * `defer_loading: true`, as `tools('anthropic', {deferral: 'client'})` puts them).
   */
  toolSearchResult(toolUseId: string, input: unknown): AnthropicToolResultBlock {
    const parsed = parseSearchInput(input);
    if (!parsed.ok) return toAnthropicToolResult(toolUseId, errorResult(parsed.message));
    const hits = this.#searchDeferred(parsed.query, parsed.limit);
    if (hits.length === 0) {
      return toAnthropicToolResult(toolUseId, {
        content: [{ type: 'text', text: `No tool matches "${parsed.query}"` }],
      });
    }
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: hits.map((hit) => ({ type: 'tool_reference' as const, tool_name: hit.name })),
    };
  }

  /**
   * Meta mode's `tool_search` as a tool the wrapper runs, so it is called like every other: the
   * session's lock, before/after hooks (an audit hook sees searches; a hook may block one),
   * input check, limits and timing. Made once per session: it reads the session's state when run.
   */
  searchTool(): RegisteredTool {
    this.#metaSearchTool ??= {
      descriptor: toolSearchDescriptor(this.#handover()),
      source: 'builtin',
      sourceId: 'builtin',
      executor: {
        ref: { kind: 'core', executorId: `session/${TOOL_SEARCH_NAME}` },
        validateInput: (input) => {
          const parsed = parseSearchInput(input);
          return parsed.ok
            ? { ok: true, value: { query: parsed.query, limit: parsed.limit } }
            : { ok: false, issues: [{ path: parsed.path, message: parsed.problem }] };
        },
        run: async (input) => this.#metaSearch(input as { query: string; limit: number }),
      },
    };
    return this.#metaSearchTool;
  }

  /**
   * Meta mode's `tool_search`: finds deferred tools, loads them (unless this session's searches
   * only return), and returns their definitions.
   */
  #metaSearch({ query, limit }: { query: string; limit: number }): ToolResult {
    const hits = this.#searchDeferred(query, limit);
    if (hits.length === 0) return { content: [{ type: 'text', text: `No tool matches "${query}"` }] };
    if (this.#owner.searchLoads) this.load(hits.map((h) => h.name));
    const byName = new Map(this.#current().descriptors.map((d) => [d.name, d]));
    const found = hits.flatMap((hit) => {
      const d = byName.get(hit.name);
      return d === undefined
        ? []
        : [{ name: d.name, description: d.description, inputSchema: d.inputSchema }];
    });
    return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: { tools: found } };
  }

  /** True when `name` is the session's own search tool (no tool of the Map has its name). */
  isSearch(name: string, snapshot: CatalogSnapshot): boolean {
    return name === TOOL_SEARCH_NAME && !snapshot.registry.tools.has(name);
  }

  /** True when `name` is the session's `call_tool` (no tool of the Map has its name). */
  isCallTool(name: string, snapshot: CatalogSnapshot): boolean {
    return name === CALL_TOOL_NAME && !snapshot.registry.tools.has(name);
  }

  /**
   * Answers every client-executed `tool_search_call` item of a Responses API output with its
   * `tool_search_output` item: the deferred tools that match, as function tools (for
   * `tools('openai-responses', {deferral: 'client'})`). Other items are ignored. Never throws;
   * bad arguments give an output with no tools.
   */
  openAIToolSearch<Item extends OpenAIResponseItem>(output: readonly Item[]): OpenAIToolSearchOutput[] {
    const calls = clientToolSearchCallsOf(output);
    if (calls.length === 0) return [];
    const byName = new Map(this.#current().descriptors.map((d) => [d.name, d]));
    return calls.map((call) => {
      let args: unknown = call.arguments;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          args = undefined;
        }
      }
      const parsed = parseSearchInput(args);
      const hits = parsed.ok ? this.#searchDeferred(parsed.query, parsed.limit) : [];
      return {
        type: 'tool_search_output',
        call_id: typeof call.call_id === 'string' ? call.call_id : '',
        execution: 'client',
        status: 'completed',
        tools: hits.flatMap((hit) => {
          const d = byName.get(hit.name);
          return d === undefined ? [] : [toOpenAIResponsesDeferredTool(d)];
        }),
      };
    });
  }
}
