import type {
  ApprovalSeverity,
  AvailabilityContext,
  CallSignal,
  HiddenToolPlanEntry,
  InputAnswer,
  InputRequest,
  ToolDescriptor,
  ToolDiagnostic,
  ToolExecutorRef,
  ToolLogger,
  ToolResult,
} from '@toolhost/plugin-sdk';
import type { OwnDeadline, OwnResultLimit } from './config/limits.js';
import type { Cancellation } from './util/cancel.js';

/**
 * The sources the registry merges, in merge order: the host's four, then a channel session's own
 * tools (core/dispatch/channel.ts), which only that session's view of the Map holds.
 */
export type ToolSourceKind = 'builtin' | 'plugin' | 'mcp' | 'custom' | 'channel';

/** One problem found in an input, with the path into the input where it is. */
export interface InputIssue {
  /** Dotted path, `(root)` for the whole input. */
  readonly path: string;
  readonly message: string;
}

/** The outcome of checking an input against a tool's schema. */
export type InputCheck =
  | { readonly ok: true /** The parsed input (defaults applied). */; readonly value: unknown }
  | { readonly ok: false; readonly issues: readonly InputIssue[] };

/** What an executor gets for one call, beside its input. */
export interface ExecutionContext {
  readonly toolUseId: string;
  readonly sessionId: string;
  /** Aborted on timeout or when the caller cancels. */
  readonly signal: CallSignal & AbortSignal;
  /**
   * The same cancellation without an `AbortSignal` made for it (the wrapper's contexts carry it):
   * what the paths below pass on, so a call that is never cancelled makes no signal. Read it with
   * `cancellationOf` (util/cancel.ts), which falls back to `signal`.
   */
  readonly cancellation?: Cancellation;
  readonly log: ToolLogger;
  progress(done: number, total?: number, message?: string): void;
  /** The W3C trace context the call came with (an MCP request's `_meta`), passed on to bridged calls. */
  readonly trace?: TraceContext;
  /** Asks the client of the MCP request the call came with (`ctx.ask`); absent for other calls. */
  readonly ask?: InputAsker;
}

/**
 * Asks an MCP client `requests` at once (a form, a completion, its roots) and resolves with the
 * answers by key; `optional`: a request the client cannot take is answered `{refused}` instead
 * of failing the ask. See serve/ask.ts.
 */
export type InputAsker = (
  requests: Readonly<Record<string, InputRequest>>,
  optional: boolean,
) => Promise<Record<string, InputAnswer>>;

/** W3C trace context, as MCP carries it in `_meta` (`traceparent`, `tracestate`, `baggage`). */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
  readonly baggage?: string;
}

/**
 * Who is calling, as the HTTP endpoint authenticated them: a project token, an OAuth access
 * token, or nobody (a loopback server started with `--allow-unauthenticated`). Plain data; the
 * credential itself is never kept here.
 */
export interface Principal {
  /** `token:<name>`, `oauth:<subject>` (the JWT's `sub`) or `anonymous`: what the audit trail records. */
  readonly id: string;
  readonly kind: 'token' | 'oauth' | 'anonymous';
  /** The project token's name (kind `token`). */
  readonly tokenName?: string;
  /** The JWT's `sub` (kind `oauth`). */
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id` or `azp`). */
  readonly clientId?: string;
  /** The scopes the token carries. */
  readonly scopes?: readonly string[];
  /** The JWT's claims (kind `oauth`), for `principals.<name>.match.claim`. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * The host side of an executor, whatever its kind. The wrapper treats every kind alike: it
 * validates the input on the host (with `validateInput`, or the descriptor's JSON Schema), runs
 * the before-hooks, then awaits `run`.
 */
export interface ToolExecutor {
  readonly ref: ToolExecutorRef;
  /**
   * Checks the input on the host and returns it parsed (defaults applied). When absent, the
   * wrapper checks the input against `descriptor.inputSchema` (JSON Schema, compiled once). An
   * executor that validates again elsewhere (a plugin, inside its isolate) may still throw
   * `invalidInput(issues)` from `run`.
   */
  validateInput?(input: unknown): InputCheck;
  /**
   * Runs the call. A thrown error becomes an `is_error` result; a returned result with
   * `isError: true` is passed on as it is.
   */
  run(input: unknown, ctx: ExecutionContext): Promise<ToolResult>;
  /**
   * Reads a resource the tool points at (an MCP Apps tool's `ui://` page, named by its
   * descriptor's `meta.ui.resourceUri`) from where the tool lives: a bridged server's
   * `resources/read` result. Only bridged tools have it.
   */
  readResource?(uri: string): Promise<unknown>;
}

/** A tool in the registry Map: its descriptor, where it came from, and how to run it. */
export interface RegisteredTool {
  readonly descriptor: ToolDescriptor;
  readonly source: ToolSourceKind;
  /** Which instance of the source: the plugin id, the MCP server name, the channel id, `builtin` or `custom`. */
  readonly sourceId: string;
  /** Policy groups beyond the automatic ones (`fs`, `runtime`): only core tools may carry them. */
  readonly groups?: readonly string[];
  readonly executor: ToolExecutor;
  /**
   * The wall-clock limit its source sets (a plugin's, an MCP server's, exec's), replacing
   * `limits.timeoutMs` for this tool, higher or lower; the wrapper enforces it (limits.ts).
   */
  readonly timeout?: OwnDeadline;
  /** The source's own result limit (a plugin's `maxResultChars`): replaces `limits.maxResultChars` for this tool. */
  readonly resultLimit?: OwnResultLimit;
  /**
   * Makes the copy of this entry that one session runs, for a tool whose work calls back into the
   * session that runs it (code mode's `run_code`, the `skill` tool). The Map holds the entry for
   * policy, the plan and listings; once policy and the plan admit it, a session calls the copy
   * this makes for it (made again when the session's state changes: a new Map, hooks, active
   * set). The copy keeps the entry's name; what it calls goes through that session's checks.
   */
  readonly bindToSession?: (session: SessionBinding) => RegisteredTool;
}

/**
 * What a tool bound to one session may ask of that session (`RegisteredTool.bindToSession`).
 * Every call goes through the session's full wrapper, so a bound tool never reaches a tool that
 * session could not call, and never runs under another session's context.
 */
export interface SessionBinding {
  /** The session's id. */
  readonly id: string;
  /** The tools the session may call now (active and visible), in plan order, code mode's own left out. */
  callableDescriptors(): readonly ToolDescriptor[];
  /** Whether the session may call `name` now; the message is written for the model. */
  check(name: string): { readonly ok: true } | { readonly ok: false; readonly message: string };
  /** A call through the session (policy, availability, active set, hooks, approval, limits). */
  call(
    name: string,
    input: unknown,
    options: { readonly signal?: AbortSignal },
  ): Promise<{ readonly result: ToolResult }>;
}

/** One source's contribution to a registry build. */
export interface ToolSource {
  readonly kind: ToolSourceKind;
  readonly id: string;
  readonly tools: readonly RegisteredTool[];
  /** Tools the source knows of but cannot offer (a plugin that failed to load, a server that is down). */
  readonly unavailable?: readonly HiddenToolPlanEntry[];
  /**
   * The built-in names its tools may take, and the setting that lists them (a channel's
   * `channel.overrides`); a plugin's come from policy (`plugins.<id>.overrides`).
   */
  readonly overrides?: { readonly key: string; readonly names: readonly string[] };
  /**
   * Its tools that take their name in the merge but are not offered, each with why (a channel's
   * owner-only tool for a sender who is not the owner): the tool it replaced stays replaced, so
   * no other source's tool can catch calls meant for it.
   */
  readonly withheld?: ReadonlyMap<string, ToolDiagnostic>;
  /**
   * Its tools have a switch of their own (code mode, the skills folder): an allow list that
   * leaves them all out is then no mistake, and gets no `allow-matches-nothing` warning.
   */
  readonly optIn?: boolean;
}

/** Why the host asks a source to refresh. */
export type RefreshReason =
  /** The host is starting. */
  | { readonly kind: 'start' }
  /** The settings changed (the config file, or options given in code): all of them may matter. */
  | { readonly kind: 'settings' }
  /** An operator's reload: everything again, second chances included (a quarantine lifts). */
  | { readonly kind: 'reload' }
  /**
   * The watcher saw the files of these plugins change (a plugin's folder, by id), and of these
   * skills (by name, `*` for the whole folder).
   */
  | { readonly kind: 'files'; readonly ids: ReadonlySet<string>; readonly skills?: ReadonlySet<string> };

/**
 * What a Map keeps alive of a source while it may still run a call: a plugin's isolate version,
 * say. The host enters and exits it around each call the Map admits, and tells it when another
 * Map took this one's place; it lets go once both have happened.
 */
export interface MapHold {
  enter(): void;
  exit(): void;
  replaced(): void;
}

/**
 * A live source of tools: each of the host's (built-in, code mode, skills, plugins, MCP servers,
 * tools given through the API; listed in `host/sources.ts`) is one, and a new one is one more of these. The host's reload pipeline refreshes the
 * sources a change concerns, then builds the whole Map from every source's contributions; nothing
 * else knows how a source loads. A source says when it changed on its own (an MCP server's tool
 * list, a plugin quarantined) through `onChange`, and the Map is rebuilt.
 */
export interface SourceAdapter {
  /** Names it in causes and errors: `builtin`, `plugins`, `mcp`, `api`. */
  readonly name: string;
  /**
   * Brings it up to date for `reason`; resolves, once its contributions are current, with whether
   * they changed. A bad plugin or a server that is down is a hidden entry, never a rejection.
   */
  refresh(reason: RefreshReason): Promise<boolean>;
  /** What it offers now, one contribution per plugin or server (and per API source). */
  contributions(): readonly ToolSource[];
  /** Hooks it brings (a plugin's declared hooks), in order. */
  hooks?(): readonly ToolHooks[];
  /** Facts it adds to availability checks (the plugins that are enabled and loaded). */
  facts?(): Partial<AvailabilityContext>;
  /** Called for each Map built from its contributions: what that Map keeps alive. */
  hold?(): MapHold;
  /** Listens for changes it makes on its own; `cause` says what (`mcp`, `quarantine:<id>`, `api`). */
  onChange(listener: (cause: string) => void): Disposer;
  /** Lets go of everything it started (processes, connections, watchers' work). */
  close(): Promise<void>;
}

/** Allow/deny policy, applied when the Map is built and again at call time. */
export interface ToolPolicy {
  /** When false, no built-in tool enters the Map. Default true. */
  readonly builtins?: boolean;
  /**
   * When present, a tool must match one of these patterns to be allowed — whatever its source.
   * Patterns: tool names with `*` wildcards, or groups (`group:fs`, `group:plugin:<id>`, …).
   */
  readonly allow?: readonly string[];
  /** A tool matching any of these is denied, even when `allow` names it. */
  readonly deny?: readonly string[];
  /** Tools matching these are deferred: shown only once a tool search finds them, callable all along. */
  readonly defer?: readonly string[];
  /** What stays loaded, and when deferral starts on its own (see core/dispatch/deferral.ts). */
  readonly catalog?: ToolCatalogPolicy;
  /** Built-in names a plugin may take, by plugin id (`plugins.<id>.overrides`; core/register/names.ts). */
  readonly overrides?: Readonly<Record<string, readonly string[]>>;
}

/** The loaded part of the tool catalog: what never defers, and the automatic mode. */
export interface ToolCatalogPolicy {
  /** Tools matching these are never deferred, whatever else says so. */
  readonly always?: readonly string[];
  /** When the tools not otherwise deferred would cost more tokens than this (JSON length / 4), they are all deferred. */
  readonly autoBudgetTokens?: number;
}

/** Severity of a registry diagnostic. */
export type DiagnosticLevel = 'info' | 'warning' | 'error';

/** Codes of registry diagnostics, sorted. */
export type RegistryDiagnosticCode =
  | 'allow-matches-nothing'
  | 'deny-matches-nothing'
  | 'invalid-tool-name'
  | 'override-matches-nothing'
  | 'override-refused'
  | 'policy-denied'
  | 'tool-overridden'
  | 'unsupported-availability';

/** Something the registry build wants a person to know. Never silent, never thrown. */
export interface RegistryDiagnostic {
  readonly level: DiagnosticLevel;
  readonly code: RegistryDiagnosticCode;
  readonly message: string;
  readonly toolName?: string;
}

/** A built registry: the Map, what was kept out of it and why, and the diagnostics. */
export interface Registry {
  /** The tools, by name. Rebuilt whole on every change; never mutated after the build. */
  readonly tools: ReadonlyMap<string, RegisteredTool>;
  /** Tools kept out of the Map (policy-denied, overridden) or offered as unavailable by a source. */
  readonly excluded: readonly HiddenToolPlanEntry[];
  readonly diagnostics: readonly RegistryDiagnostic[];
}

/** A before-hook's view of a call. */
export interface BeforeToolCallEvent {
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly toolName: string;
  readonly descriptor: ToolDescriptor;
  /** The validated input, as rewritten by the hooks that ran before this one. */
  readonly input: unknown;
  readonly signal: AbortSignal;
}

/**
 * What a before-hook returns. Merge rules, applied hook after hook in registration order:
 * - `undefined` / `void`: pass; the input stays as it is.
 * - `{ input }`: the input is replaced by `input`, which is validated again against the tool's
 *   schema at once; an invalid rewrite ends the call with an error result naming the hook.
 *   The next hook sees the replaced input.
 * - `{ block: true, reason }`: the call ends; the executor never runs, later hooks never run,
 *   and the result is an error carrying `reason`.
 * - a throw: the same as a block, with the error's message as the reason.
 * - `{ requireApproval, input? }`: a person must approve the call (`input`, when present, is a
 *   rewrite as above). Asks are collected while the hooks run and later hooks still run: a block
 *   from any hook, even one after the asking hook, ends the call and nobody is asked. The first
 *   ask wins (config `tools.approve`, then the descriptor's `requireApproval`, then hooks in
 *   order): its title and description are shown, later asks add nothing. The person is asked
 *   once, after the last before-hook, with the final input, outside the session lock and the
 *   hook time limit; the executor then runs only with exactly that input (see approvals.ts).
 */
export type BeforeToolCallResult =
  | undefined
  | { readonly input: unknown }
  | { readonly block: true; readonly reason: string }
  | { readonly requireApproval: HookApprovalRequest; readonly input?: unknown };

/** What a before-hook shows the approver when it asks for approval. */
export interface HookApprovalRequest {
  /** One line: what is about to happen. */
  readonly title: string;
  /** More detail, when it helps the person decide. */
  readonly description?: string;
  /** Default `warning`. */
  readonly severity?: ApprovalSeverity;
  /** Waits at most this long (never longer than `approvals.timeoutMs`), ms. */
  readonly timeoutMs?: number;
}

/** An after-hook's view of a finished call. */
export interface AfterToolCallEvent {
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly toolName: string;
  readonly descriptor: ToolDescriptor;
  /** The input the executor ran with. */
  readonly input: unknown;
  /** The result, as patched by the after-hooks that ran before this one. */
  readonly result: ToolResult;
  readonly durationMs: number;
  readonly signal: AbortSignal;
}

/**
 * What an after-hook returns. Merge rules, hook after hook; each field independently:
 * - `content`: when present, replaces the whole content array.
 * - `structuredContent`: when the key is present, replaces it (`undefined` removes it).
 * - `isError`: when present, sets the flag.
 * - a throw: the result becomes an error saying the hook failed and that the executor had
 *   already run (its effects happened); later after-hooks do not run.
 */
export type AfterToolCallResult =
  | undefined
  | {
      readonly content?: ToolResult['content'];
      readonly structuredContent?: ToolResult['structuredContent'];
      readonly isError?: boolean;
    };

/** Runs before the executor; may pass, rewrite the input or block (see {@link BeforeToolCallResult}). */
export type BeforeToolCallHook = (
  event: BeforeToolCallEvent,
) => BeforeToolCallResult | void | Promise<BeforeToolCallResult | void>;
/** Runs after the executor; may patch the result (see {@link AfterToolCallResult}). */
export type AfterToolCallHook = (
  event: AfterToolCallEvent,
) => AfterToolCallResult | void | Promise<AfterToolCallResult | void>;

/** Hooks to register together; each optional. `name` appears in error messages. */
export interface ToolHooks {
  readonly name: string;
  readonly beforeToolCall?: BeforeToolCallHook;
  readonly afterToolCall?: AfterToolCallHook;
}

/** Undoes a registration. Calling it twice is harmless. */
export type Disposer = () => void;
