/** The shapes a session is made of and answers with: its host's snapshot, its options, its checks. */
import type { AvailabilityContext } from '@toolhost/plugin-sdk';
import type { Principal, Registry, ToolHooks, ToolPolicy, ToolSource, TraceContext } from '../../types.js';
import type { CallLimits, CallObserver } from '../wrap/wrapper.js';
import type { ApprovalHandler, ApprovalSettings } from './approvals.js';
import type { ChannelOptions } from './channel.js';
import type { PolicyOverlay, PrincipalRule } from './principals.js';
import type { SkillCatalog } from './skills.js';

/** What a session reads from its host at the start of each call: one consistent state. */
export interface HostSnapshot {
  /** Increases with every rebuild of the Map. */
  readonly version: number;
  readonly registry: Registry;
  /** The contributions the Map was built from: a channel session builds its own Map from them. */
  readonly sources?: readonly ToolSource[];
  readonly policy: ToolPolicy;
  /** Availability facts of the host; the session adds its own `context`. */
  readonly availability: AvailabilityContext;
  readonly limits: CallLimits;
  /** Host-wide hooks; they run before the session's own. */
  readonly hooks: readonly ToolHooks[];
  /** Code mode's default for sessions and its limits (`tools.codeMode`, `limits.codeMode`). */
  readonly codeMode?: CodeModeSettings;
  /** `tools.approve` and `approvals` of the config. */
  readonly approvals?: ApprovalSettings;
  /** Set once the host is closing or closed: every call is refused. */
  readonly closed?: boolean;
  /** Marks a call in flight (so the host can drain before closing); returns its end. */
  readonly track?: () => () => void;
  /** The skills of the `skills/` folder (core/dispatch/skills.ts). */
  readonly skills?: SkillCatalog;
  /** Config `principals`: who gets which policy overlay (core/dispatch/principals.ts). */
  readonly principals?: readonly PrincipalRule[];
  /** Set in a principal's view of the snapshot: the overlay that fits it, if any. */
  readonly overlay?: { readonly principal: Principal; readonly overlay: PolicyOverlay };
}

/**
 * Whether sessions use code mode unless they say (`tools.codeMode`). Code mode's tools and their
 * limits are code-mode/'s: the Map's entries, each session's copy bound through `bindToSession`.
 */
export interface CodeModeSettings {
  readonly enabled: boolean;
}

/** How `host.session(options)` sets up a session. */
export interface SessionOptions {
  /** Session id passed to hooks and executors; a random UUID by default. */
  readonly id?: string;
  /** Names to activate; by default every visible tool is active, following changes. */
  readonly activeTools?: readonly string[];
  /** Per-session facts for `context(key, equals)` availability signals. */
  readonly context?: Readonly<Record<string, unknown>>;
  /**
   * Code mode: the model gets `run_code` (a script calling the session's tools as async
   * functions, each call through the full wrapper) and `describe_tools` instead of every tool.
   * Default: the config's `tools.codeMode`.
   */
  readonly codeMode?: boolean;
  /**
   * The channel the session runs on: its tools (owner `channel:<id>`, executor kind `channel`)
   * join this session's view of the Map, the sender is injected into them, and `context.channel`
   * is the channel id (see core/dispatch/channel.ts).
   */
  readonly channel?: ChannelOptions;
  /**
   * Answers calls that need approval (`tools.approve`, a descriptor's `requireApproval`, a hook's
   * `requireApproval`); the first answer wins between it and `host.approvals.answer`. See approvals.ts.
   */
  readonly onApproval?: ApprovalHandler;
  /**
   * Who the session serves (an MCP caller the HTTP endpoint authenticated): the first
   * `principals` entry that fits it lays its overlay over the host's policy, at list and at call
   * time; approvals name it.
   */
  readonly principal?: Principal;
  /**
   * False: `tool_search` returns what it finds and loads nothing, so this session's list never
   * changes as a side effect of a search; its finds are called through `call_tool`. For a session
   * many clients share (MCP 2026-07-28). Default true.
   */
  readonly searchLoads?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call; the executor's `ctx.signal` follows it. */
  readonly signal?: AbortSignal;
  /** Receives the executor's log lines and progress. */
  readonly observer?: CallObserver;
  /** The caller's trace context (an MCP request's `traceparent`), passed on to bridged calls. */
  readonly trace?: TraceContext;
}

/** Why a tool cannot be called now. */
export type ToolRefusal = 'denied' | 'hidden' | 'inactive' | 'unknown';

/** The answer of `Session.check`. */
export type ToolCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly refusal: ToolRefusal; readonly message: string };
