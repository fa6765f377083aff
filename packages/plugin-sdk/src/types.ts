/**
 * The contracts of toolhost. Everything here is plain, readonly data: the host and the sandbox
 * exchange these shapes and nothing else. Implementations `import type` from this file.
 */

export type {
  AudioContent,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  JsonSchema,
  ResourceContents,
  ResourceLink,
  TextContent,
  ToolResult,
} from './types-content.js';

import type { JsonSchema } from './types-content.js';

export type {
  CallSignal,
  CapabilityFailure,
  ElicitAnswer,
  FetchOptions,
  FetchResponse,
  FileStat,
  InputAnswer,
  InputRequest,
  PluginFs,
  PluginPermissions,
  ToolContext,
  ToolLogger,
} from './types-context.js';

/** Who provides a tool. Rendered for people as `plugin:weather`; never parsed back. */
export type ToolOwnerRef =
  /** Built into the host, trusted, in-process. */
  | { readonly kind: 'core' }
  /** Declared by a sandboxed plugin from `plugins/<pluginId>/`. */
  | { readonly kind: 'plugin'; readonly pluginId: string }
  /** Provided by a messaging channel integration. */
  | { readonly kind: 'channel'; readonly channelId: string }
  /** Bridged from an MCP server listed in config. */
  | { readonly kind: 'mcp'; readonly serverId: string }
  /** Handed in through the host API at run time. */
  | { readonly kind: 'custom' };

/**
 * Where a call lands. The host resolves it to an executor; plugin executors never leave their
 * isolate, so this is the only handle the host has on them.
 */
export type ToolExecutorRef =
  /** An in-process function (built-in or custom tool). */
  | { readonly kind: 'core'; readonly executorId: string }
  /** A tool's `execute` inside the isolate of plugin `pluginId`. */
  | { readonly kind: 'plugin'; readonly pluginId: string; readonly toolName: string }
  /** An action of a channel integration. */
  | { readonly kind: 'channel'; readonly channelId: string; readonly actionId: string }
  /** A tool of an MCP server, called through the SDK client. */
  | { readonly kind: 'mcp'; readonly serverId: string; readonly toolName: string };

/** Behaviour hints, named as MCP names them. Hints only: never trusted for security decisions. */
export interface ToolAnnotations {
  /** A display title for the tool. */
  readonly title?: string;
  /** The tool does not modify its environment. */
  readonly readOnlyHint?: boolean;
  /** The tool may perform destructive updates (meaningful only when not read-only). */
  readonly destructiveHint?: boolean;
  /** Calling it again with the same arguments has no additional effect. */
  readonly idempotentHint?: boolean;
  /** The tool may interact with an open world of external entities. */
  readonly openWorldHint?: boolean;
}

/** One availability signal. Each is answered from the host's {@link AvailabilityContext}. */
export type AvailabilitySignal =
  /** Always available (the default). */
  | { readonly kind: 'always' }
  /** Credentials for `providerId` are present. */
  | { readonly kind: 'auth'; readonly providerId: string }
  /** The host config value at dotted `path` exists (default) or is non-empty. */
  | { readonly kind: 'config'; readonly path: string; readonly check?: 'exists' | 'non-empty' }
  /** Environment variable `name` is set to something other than blanks. */
  | { readonly kind: 'env'; readonly name: string }
  /** Plugin `pluginId` is loaded and enabled. */
  | { readonly kind: 'plugin-enabled'; readonly pluginId: string }
  /** The session context has `key` (and, when `equals` is given, that exact value). */
  | { readonly kind: 'context'; readonly key: string; readonly equals?: string | number | boolean };

/** A signal, or a boolean group of expressions. An empty group or a cycle is unsupported. */
export type AvailabilityExpression =
  | AvailabilitySignal
  /** Available when every member is. */
  | { readonly allOf: readonly AvailabilityExpression[] }
  /** Available when at least one member is. */
  | { readonly anyOf: readonly AvailabilityExpression[] };

/** What the host knows when it evaluates availability. Missing parts count as empty. */
export interface AvailabilityContext {
  /** Provider ids whose credentials are present. */
  readonly auth?: readonly string[];
  /** The host config tree that `config(path)` signals look into. */
  readonly config?: unknown;
  /** Environment variables visible to availability checks. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Ids of plugins that are loaded and enabled. */
  readonly enabledPlugins?: readonly string[];
  /** Per-session facts such as `channel: 'slack'`. */
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * What a tool's author writes of it beside its name, description, schemas and code, and its
 * descriptor carries as written: one statement for `ToolDefinition` and `ToolDescriptor`.
 */
export interface ToolPresentation {
  /** Human-friendly title. */
  readonly title?: string;
  /** When the tool may be shown; default `always`. */
  readonly availability?: AvailabilityExpression;
  /** MCP behaviour hints. */
  readonly annotations?: ToolAnnotations;
  /** Sort key for the plan; defaults to `name`. */
  readonly sortKey?: string;
  /**
   * true: shown to the model only once a tool search finds it (it stays callable all along);
   * false: never deferred by the automatic budget. Config (`tools.defer`, `tools.catalog.always`)
   * decides over it.
   */
  readonly deferLoading?: boolean;
  /**
   * A person approves each call before it runs (see the host's `tools.approve`): `true`, or the
   * reason and severity shown to the approver. Config can add approvals, never lift this one.
   */
  readonly requireApproval?: ToolApprovalRequirement;
}

/** The public description of a tool: what the planner, the model and people see. */
export interface ToolDescriptor extends ToolPresentation {
  /** Unique name the model calls the tool by. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** JSON Schema (2020-12) of the input object. */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of `structuredContent`, when the tool returns structured output. */
  readonly outputSchema?: JsonSchema;
  /** Who provides the tool. */
  readonly owner: ToolOwnerRef;
  /** Where calls land. A visible descriptor must have one. */
  readonly executor?: ToolExecutorRef;
  /** Icons for clients to show (MCP's `icons`): kept from a bridged server's tool. */
  readonly icons?: readonly ToolIcon[];
  /**
   * MCP's `_meta` of the tool, as a bridged server sent it (an MCP Apps tool's
   * `ui.resourceUri`, say); served again as the tool's `_meta`.
   */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** An icon of a tool (MCP's `Icon`). */
export interface ToolIcon {
  readonly src: string;
  readonly mimeType?: string;
  readonly sizes?: readonly string[];
  readonly theme?: 'light' | 'dark';
}

/** How bad a call needing approval could be, as shown to the approver. */
export type ApprovalSeverity = 'info' | 'warning' | 'critical';

/** A tool's own demand for approval: `true`, or what to tell the approver. */
export type ToolApprovalRequirement =
  | true
  | { readonly reason?: string; readonly severity?: ApprovalSeverity };

/**
 * Why a tool is hidden. From availability: `auth-missing`, `config-missing`, `context-mismatch`,
 * `env-missing`, `plugin-disabled` (also the host's, for a plugin disabled in config),
 * `unsupported-signal`; from the host: `mcp-unavailable`, `overridden`, `override-refused` (a
 * plugin, MCP or channel tool named like a built-in the operator did not let it replace, or like
 * a meta tool, which nothing replaces), `plugin-load-failed`, `policy-denied`, `quarantined` (its
 * plugin kept crashing the executor process), and
 * `owner-only` (a channel tool for the channel's owner, and the sender is not); for skills
 * (`host.skills()`): `bin-missing`, `os-mismatch` and `skill-invalid` (a SKILL.md that does not parse).
 */
export type HiddenReason =
  | 'auth-missing'
  | 'bin-missing'
  | 'config-missing'
  | 'context-mismatch'
  | 'env-missing'
  | 'invalid-name'
  | 'mcp-unavailable'
  | 'os-mismatch'
  | 'overridden'
  | 'override-refused'
  | 'owner-only'
  | 'plugin-disabled'
  | 'plugin-load-failed'
  | 'policy-denied'
  | 'quarantined'
  | 'skill-invalid'
  | 'unsupported-signal';

/** One reason a tool is hidden, in words a person can act on. */
export interface ToolDiagnostic {
  /** The machine-readable reason. */
  readonly reason: HiddenReason;
  /** What is wrong and, where possible, how to fix it. */
  readonly message: string;
  /** The availability signal that failed, when one did. */
  readonly signal?: AvailabilitySignal;
}

/** A visible, callable tool of the plan. */
export interface ToolPlanEntry {
  readonly descriptor: ToolDescriptor;
  /** Always present: visible means callable. */
  readonly executor: ToolExecutorRef;
}

/** A hidden tool and every reason it is hidden (never empty). */
export interface HiddenToolPlanEntry {
  readonly descriptor: ToolDescriptor;
  readonly diagnostics: readonly ToolDiagnostic[];
}

/** The planner's output: descriptors split into visible and hidden, in plan order. */
export interface ToolPlan {
  readonly visible: readonly ToolPlanEntry[];
  readonly hidden: readonly HiddenToolPlanEntry[];
}

/** Codes of {@link ToolPlanContractError}, sorted. */
export type ToolPlanContractErrorCode = 'duplicate-tool-name' | 'missing-executor';
