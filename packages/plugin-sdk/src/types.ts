/**
 * The contracts of toolhost. Everything here is plain, readonly data: the host and the sandbox
 * exchange these shapes and nothing else. Implementations `import type` from this file.
 */

/** A JSON Schema (2020-12) object, as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

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

/** The public description of a tool: what the planner, the model and people see. */
export interface ToolDescriptor {
  /** Unique name the model calls the tool by. */
  readonly name: string;
  /** Human-friendly title. */
  readonly title?: string;
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

/** Optional MCP annotations on a content block. */
export interface ContentAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[];
  readonly priority?: number;
  readonly lastModified?: string;
}

/** Plain text. */
export interface TextContent {
  readonly type: 'text';
  readonly text: string;
  readonly annotations?: ContentAnnotations;
}

/** An image, base64-encoded. */
export interface ImageContent {
  readonly type: 'image';
  /** Base64 data. */
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: ContentAnnotations;
}

/** Audio, base64-encoded. */
export interface AudioContent {
  readonly type: 'audio';
  /** Base64 data. */
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: ContentAnnotations;
}

/** The contents of a resource embedded in a result: text or base64 blob. */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** A resource embedded in the result. */
export interface EmbeddedResource {
  readonly type: 'resource';
  readonly resource: ResourceContents;
  readonly annotations?: ContentAnnotations;
}

/** A link to a resource the client may fetch. */
export interface ResourceLink {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly annotations?: ContentAnnotations;
}

/** MCP content blocks: convertible to Anthropic `tool_result` and OpenAI tool messages. */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** What a tool call produces. */
export interface ToolResult {
  /** What the model reads. */
  readonly content: readonly ContentBlock[];
  /** The call failed; `content` says why. */
  readonly isError?: boolean;
  /** Structured output matching the tool's `outputSchema`. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  /** MCP's `_meta` of the result, as a bridged server sent it; served again as the result's `_meta`. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** Codes of {@link ToolPlanContractError}, sorted. */
export type ToolPlanContractErrorCode = 'duplicate-tool-name' | 'missing-executor';

/** The abort signal a call receives: a real `AbortSignal` on the host, a compatible shim in the sandbox. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  throwIfAborted(): void;
}

/** Log lines from an executor, tagged with the tool and call by the host. */
export interface ToolLogger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** What a plugin asks for. Nothing takes effect until config grants it (`plugins.<id>.grants`). */
export interface PluginPermissions {
  /** Hosts `ctx.fetch` may reach: `api.example.com`, or `*.example.com` for subdomains. */
  readonly net?: readonly string[];
  /** Folders (relative to the project root) `ctx.fs` may read, or read and write. */
  readonly fs?: { readonly read?: readonly string[]; readonly write?: readonly string[] };
  /** Environment variables `ctx.env.get` may read. */
  readonly env?: readonly string[];
}

/** A response of `ctx.fetch`: the body is already read (size-capped) on the host. */
export interface FetchResponse {
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Readonly<Record<string, string>>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** Options of `ctx.fetch`; bodies are text. */
export interface FetchOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** `stat` of a path under a granted root. */
export interface FileStat {
  readonly size: number;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly mtimeMs: number;
}

/**
 * File access under the roots config grants; paths are relative to the project root (a granted
 * `data` folder is reached as `data/x.txt`). A failure rejects with an `Error` whose `code` says
 * why: a system code (`ENOENT`, `EISDIR`, `ENOTDIR`, `EEXIST`, `ENOTEMPTY`, …) or `not-granted`
 * (outside the granted folders, or through a link leading out), `limit-exceeded`, `invalid-args`,
 * `control-file` (a host control file: the config, plugins/, .toolhost/; no grant opens them).
 */
export interface PluginFs {
  readFile(path: string): Promise<string>;
  /** Replaces the file atomically, creating it and its missing folders. Needs a write grant. */
  writeFile(path: string, data: string): Promise<void>;
  /** Appends text, creating the file; the result must stay within `fsMaxBytes`. Needs a write grant. */
  appendFile(path: string, data: string): Promise<void>;
  /** Names in a folder; sub-folders end with `/`. */
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<FileStat>;
  /** Makes a folder (`recursive`: with its parents, and no error when it exists). Needs a write grant. */
  mkdir(path: string, options?: { readonly recursive?: boolean }): Promise<void>;
  /**
   * Removes a file, a link (never its target) or an empty folder; `recursive` removes a folder
   * with its contents, `force` ignores a missing path. A granted folder itself cannot be removed.
   */
  rm(path: string, options?: { readonly recursive?: boolean; readonly force?: boolean }): Promise<void>;
  /** Moves a file or folder; both paths need a write grant. A granted folder itself cannot move. */
  rename(from: string, to: string): Promise<void>;
}

/**
 * A question for the client of the MCP request a call came with: a form for the person
 * (`elicitation/create`, form mode), a completion from the client's model
 * (`sampling/createMessage`), or the client's roots (`roots/list`). See `ctx.ask`.
 */
export type InputRequest =
  | {
      readonly method: 'elicitation/create';
      readonly params: { readonly message: string; readonly requestedSchema: JsonSchema };
    }
  | { readonly method: 'sampling/createMessage'; readonly params: Readonly<Record<string, unknown>> }
  | { readonly method: 'roots/list'; readonly params?: Readonly<Record<string, never>> };

/** A form's answer: `accept` with the content, `decline` or `cancel` (MCP's `ElicitResult`). */
export interface ElicitAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Readonly<Record<string, unknown>>;
}

/**
 * The answer to one `InputRequest`: the client's result as MCP defines it (`ElicitAnswer`, a
 * `CreateMessageResult`, a `ListRootsResult`), or, for an optional request the client cannot
 * answer (it did not declare the capability), `{refused}` saying why.
 */
export type InputAnswer = Readonly<Record<string, unknown>> | { readonly refused: string };

/** What a failed `ctx.fs` or `ctx.fetch` call rejects with: an `Error` with a `code`. */
export interface CapabilityFailure extends Error {
  readonly code: string;
}

/** What an executor receives beside its input. */
export interface ToolContext<Config = unknown> {
  /** The id of the `tool_use` block being answered. */
  readonly toolUseId: string;
  /** Log lines, forwarded to the host's logger (and to MCP logging when served). */
  readonly log: ToolLogger;
  /** Reports progress; forwarded as MCP progress notifications when the client asked for them. */
  progress(done: number, total?: number, message?: string): void;
  /** Aborted on timeout or when the caller cancels. */
  readonly signal: CallSignal;
  /** The plugin's validated config (undefined for tools outside plugins). */
  readonly config: Config;
  /**
   * HTTP(S) for plugins to the hosts in `permissions.net` that config grants; every redirect hop
   * is checked too. Refused with an error naming the permission and config key otherwise.
   */
  readonly fetch: (url: string, options?: FetchOptions) => Promise<FetchResponse>;
  /** Files, for plugins, under the folders in `permissions.fs` that config grants. */
  readonly fs: PluginFs;
  /** For plugins, the variables in `permissions.env` that config grants. */
  readonly env: { get(name: string): string | undefined };
  /** Resolves after `ms`; a sleep still pending when the call ends never resolves. */
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * Asks the client of the MCP request this call came with, all `requests` at once, keyed by
   * names of the tool's choosing; resolves with the answers by the same keys. Over MCP
   * 2025-11-25 the server sends the client each request; over 2026-07-28 the call ends with an
   * `input_required` result and is run again from its start when the client answers (answers of
   * earlier rounds are kept in the sealed `requestState`), so code before an ask must be safe to
   * run again. The client must be listed in `approvals.mcpClients` and have declared the
   * capability (elicitation, sampling, roots); otherwise this rejects (over 2026-07-28 a missing
   * capability fails the request with MissingRequiredClientCapability), unless `optional`, which
   * answers such a request with `{refused}` and asks the others.
   */
  readonly ask: (
    requests: Readonly<Record<string, InputRequest>>,
    options?: { readonly optional?: boolean },
  ) => Promise<Record<string, InputAnswer>>;
  /** Asks the person one form (`ctx.ask` of one `elicitation/create` under `key`, default `elicit`). */
  readonly elicit: (
    params: { readonly message: string; readonly requestedSchema: JsonSchema },
    key?: string,
  ) => Promise<ElicitAnswer>;
}
