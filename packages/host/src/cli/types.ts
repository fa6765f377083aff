/**
 * What the `toolhost` command prints for machines. These shapes are a documented contract:
 * fields may be added, never renamed or removed.
 */
import type { ContentBlock, HiddenReason, JsonSchema, ToolExecutorRef } from '@toolhost/plugin-sdk';
import type { Walls } from '../jail/index.js';
import type { PluginStatus } from '../sources/plugins/types.js';

/** `toolhost list --json`: one JSON object on stdout. */
export interface ListJson {
  /** Tools the model sees, in plan order. */
  readonly visible: readonly ListedTool[];
  /** Tools that exist but are not shown, each with every reason. */
  readonly hidden: readonly ListedHiddenTool[];
  /** Every plugin folder found under `plugins/`, sorted by id. */
  readonly plugins: readonly ListedPlugin[];
  /** Plugin isolates alive now and when they go (config `isolates`). */
  readonly isolates: ListedIsolates;
  /** Every skill folder under `skills/`, sorted by name; `diagnostics` say why one is hidden. */
  readonly skills: readonly ListedSkill[];
  /** The walls around plugin code: the isolate, and whether the executor is jailed (else why not). */
  readonly walls: Walls;
}

/** A skill as `list --json` shows it. */
export interface ListedSkill {
  readonly name: string;
  readonly description: string;
  /** The SKILL.md, relative to the current folder. */
  readonly file: string;
  /** `visible` (usable) or `hidden`. */
  readonly status: 'visible' | 'hidden';
  readonly userInvocable: boolean;
  readonly modelInvocable: boolean;
  /** The tool it runs, when it dispatches. */
  readonly tool?: string;
  readonly diagnostics: readonly { readonly reason: HiddenReason; readonly message: string }[];
  readonly warnings: readonly string[];
}

export interface ListedIsolates {
  /** Isolates alive now (none before a plugin's first call). */
  readonly live: number;
  /** Most alive at once; at the cap the least recently used idle one goes. */
  readonly maxLive: number;
  /** An isolate with no call for this long is disposed, seconds. */
  readonly idleSeconds: number;
  /** Isolates disposed while their plugin stayed loaded: idle, or at the cap. */
  readonly evicted: { readonly idle: number; readonly cap: number };
}

export interface ListedTool {
  readonly name: string;
  readonly description: string;
  /** Who provides it, as `formatOwner` renders it: `core`, `plugin:text`, `mcp:github`, `custom`. */
  readonly owner: string;
  /** The executor kind: `core` (built-in and custom tools), `plugin`, `channel` or `mcp`. */
  readonly kind: ToolExecutorRef['kind'];
  /** Where calls land, as `formatExecutor` renders it: `core:read`, `plugin:text:text_stats`. */
  readonly executor: string;
  /** JSON Schema (2020-12) of the input object. */
  readonly inputSchema: JsonSchema;
  /** Present (true) when a session defers it: reached through `tool_search` and `call_tool`. */
  readonly deferred?: true;
}

export interface ListedHiddenTool {
  readonly name: string;
  readonly owner: string;
  /** Never empty. */
  readonly diagnostics: readonly { readonly reason: HiddenReason; readonly message: string }[];
}

export interface ListedPlugin {
  /** The folder name under `plugins/`. */
  readonly id: string;
  /** `loaded`, `failed`, `disabled` or `quarantined`. */
  readonly status: PluginStatus;
  /** Why it is not loaded (empty when it is). */
  readonly diagnostics: readonly string[];
}

/** `toolhost call NAME --json`: the tool result, `isError` always present. */
export interface CallJson {
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/** Exit codes of every command. */
export const EXIT = {
  /** Done; for `call`, a result that is not an error; for `doctor`, all is well. */
  ok: 0,
  /** The work failed: an `isError` result, an invalid config, a problem `doctor` found. */
  failed: 1,
  /** The command line is wrong: unknown command or flag, bad JSON, a missing root or file. */
  usage: 2,
} as const;
