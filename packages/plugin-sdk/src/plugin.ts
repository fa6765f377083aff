import type * as z from 'zod';
import {
  descriptionTooLong,
  MAX_DESCRIPTION_CHARS,
  MAX_TOOLS_PER_PLUGIN,
  TOOL_NAME_PATTERN,
  type ToolDefinition,
  tooManyTools,
} from './define.js';
import type { ApprovalSeverity, ContentBlock, PluginPermissions, ToolLogger, ToolResult } from './types.js';

/** A before-hook's view of a call to one of the plugin's tools (or any tool, when granted). */
export interface PluginBeforeToolCallEvent {
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/** An after-hook's view of a finished call. */
export interface PluginAfterToolCallEvent extends PluginBeforeToolCallEvent {
  readonly result: ToolResult;
}

/**
 * Same outcomes as host hooks: pass (nothing), `{ input }` (validated again), `{ block, reason }`,
 * `{ requireApproval, input? }` (a person approves the call first; the host's merge rules: a block
 * from any hook still wins, the first ask is the one shown), or throw.
 */
export type PluginBeforeResult =
  | undefined
  | { readonly input: unknown }
  | { readonly block: true; readonly reason: string }
  | {
      readonly requireApproval: {
        /** One line: what is about to happen. */
        readonly title: string;
        readonly description?: string;
        /** Default `warning`. */
        readonly severity?: ApprovalSeverity;
        /** Waits at most this long (never longer than the host's `approvals.timeoutMs`), ms. */
        readonly timeoutMs?: number;
      };
      readonly input?: unknown;
    };

/** Same merge rules as host after-hooks: each present field replaces the result's. */
export type PluginAfterResult =
  | undefined
  | {
      readonly content?: readonly ContentBlock[];
      readonly structuredContent?: Readonly<Record<string, unknown>>;
      readonly isError?: boolean;
    };

/** What a plugin hook gets besides the event. */
export interface PluginHookContext<Config = unknown> {
  readonly config: Config;
  readonly log: ToolLogger;
}

/** Hooks a plugin may declare; they run inside the plugin's isolate. */
export interface PluginHooks<Config = unknown> {
  beforeToolCall?(
    event: PluginBeforeToolCallEvent,
    ctx: PluginHookContext<Config>,
  ): PluginBeforeResult | void | Promise<PluginBeforeResult | void>;
  afterToolCall?(
    event: PluginAfterToolCallEvent,
    ctx: PluginHookContext<Config>,
  ): PluginAfterResult | void | Promise<PluginAfterResult | void>;
}

/** The config type of a plugin: its schema's output, or `undefined` without one. */
export type PluginConfigOf<C extends z.ZodType | undefined> = C extends z.ZodType ? z.output<C> : undefined;

/** A plugin as its author writes it. The default export of the plugin's entry. */
export interface PluginDefinition<C extends z.ZodType | undefined = z.ZodType | undefined> {
  /** Must equal the plugin's folder name under `plugins/`. */
  readonly id: string;
  readonly version?: string;
  readonly description?: string;
  /** Zod schema of `plugins.<id>.config`; tools see the parsed value as `ctx.config`. */
  readonly config?: C;
  /** What the plugin asks for; config grants it (or not). */
  readonly permissions?: PluginPermissions;
  // biome-ignore lint/suspicious/noExplicitAny: tools differ in their input and output schemas.
  readonly tools: readonly ToolDefinition<any, any, PluginConfigOf<C>>[];
  readonly hooks?: PluginHooks<PluginConfigOf<C>>;
}

/** Marks a value as made by `definePlugin`; checked by key, not `instanceof`, across bundles. */
export const PLUGIN_BRAND = '__toolhostPlugin';

const PLUGIN_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Declares a plugin. The entry file's default export must be its result. Checks what can be
 * checked early, so a broken plugin fails at load with a message, not at its first call.
 */
export function definePlugin<C extends z.ZodType | undefined = undefined>(
  definition: PluginDefinition<C>,
): PluginDefinition<C> {
  if (typeof definition.id !== 'string' || !PLUGIN_ID_PATTERN.test(definition.id)) {
    throw new TypeError(
      `Invalid plugin id ${JSON.stringify(definition.id)}: use lower-case letters, digits, "_" or "-" (at most 64), matching the folder name`,
    );
  }
  if (!Array.isArray(definition.tools)) {
    throw new TypeError(`Plugin "${definition.id}": tools must be an array of defineTool(...) results`);
  }
  if (definition.tools.length > MAX_TOOLS_PER_PLUGIN) {
    throw new TypeError(tooManyTools(`Plugin "${definition.id}"`, definition.tools.length));
  }
  if (typeof definition.description === 'string' && definition.description.length > MAX_DESCRIPTION_CHARS) {
    throw new TypeError(descriptionTooLong(`Plugin "${definition.id}"`, definition.description.length));
  }
  const seen = new Set<string>();
  for (const tool of definition.tools) {
    if (!TOOL_NAME_PATTERN.test(tool?.name ?? '')) {
      throw new TypeError(
        `Plugin "${definition.id}" has a tool with an invalid name ${JSON.stringify(tool?.name)}`,
      );
    }
    if (seen.has(tool.name)) {
      throw new TypeError(`Plugin "${definition.id}" declares the tool "${tool.name}" twice`);
    }
    seen.add(tool.name);
  }
  return Object.assign({}, definition, { [PLUGIN_BRAND]: 1 });
}
