/**
 * The wire between the host and the runtime inside a plugin's isolate. Only strings and numbers
 * cross: every structured value is JSON, serialized on its own side and validated on the other.
 */
import type { PluginPermissions, ToolDescriptor, ToolResult } from '../types.js';

export { explainMissingGlobal } from './globals/absent.js';

/** Host functions the runtime captures before plugin code runs. All synchronous. */
export interface RuntimeBridge {
  log(callId: string, level: string, message: string, dataJson: string): void;
  /** `total` is -1 when unknown. */
  progress(callId: string, done: number, total: number, message: string): void;
  /** Starts an asynchronous capability request; the host answers later with `settle`. */
  request(callId: string, requestId: number, capability: string, argsJson: string): void;
  /** The sealed JSON reply of a call or hook started with `begin`, once it has settled. */
  reply(callId: string, replyJson: string): void;
  /**
   * Fresh random bytes from the host's CSPRNG, base64: the isolate has no entropy of its own.
   * `crypto.getRandomValues` and `crypto.randomUUID` draw on it in batches, each byte used once.
   */
  entropy(): string;
}

/** Runtime functions the host captures before plugin code runs. */
export interface RuntimeEntry {
  /** Describes the registered plugin, validating `configJson` against its config schema. */
  describe(configJson: string): string;
  /**
   * Starts one tool call (`call`: a {@link CallRequest}) or plugin hook (`hook`: a
   * {@link HookRequest}) and returns at once. A call whose tool answered without waiting (its
   * `execute` returned a value, or threw) is answered by the return value: its JSON reply. Any
   * other returns undefined, and its JSON reply goes to the bridge's `reply` once it has settled
   * (within this very entry when nothing waits on the host: the microtask checkpoint runs before
   * the entry returns). Never throws for the call's own faults: they are error replies.
   *
   * A call's `requestJson` may come in two JSON texts, the call's own members, then
   * {@link REQUEST_SETTINGS_SEPARATOR} and its {@link CallSettings}, which the runtime parses only
   * when they differ from the last call's.
   */
  begin(kind: 'call' | 'hook', requestJson: string): string | undefined;
  /** Answers a capability request with a JSON {@link CapabilityReply}. */
  settle(requestId: number, replyJson: string): void;
  /** Aborts `ctx.signal` of a call. */
  abort(callId: string, reason: string): void;
}

/**
 * Where the prelude leaves the host a one-shot {@link RuntimeAttach}. The host calls it right
 * after making the context, before any plugin code runs; it removes itself. (A V8 snapshot of the
 * prelude cannot hold host functions, so the bridge comes in only then.)
 */
export const ATTACH_GLOBAL = '__toolhost_attach';

/** The bridge's callbacks in the order {@link RuntimeAttach} takes them. */
export const BRIDGE_CALLBACKS = [
  'log',
  'progress',
  'request',
  'reply',
  'entropy',
] as const satisfies readonly (keyof RuntimeBridge)[];

/**
 * Hands the runtime its bridge (the callbacks of {@link BRIDGE_CALLBACKS}, in that order), deletes
 * what plugin code must not have (itself, `WebAssembly`, which V8 installs in every new context),
 * and returns the runtime's entry. Throws when called again or given a non-function.
 */
export type RuntimeAttach = (...callbacks: unknown[]) => RuntimeEntry;

/** The registration function the plugin bundle calls; deleted after the first call. */
export const REGISTER_GLOBAL = '__toolhost_register';

/** One problem with a value, and where. */
export interface WireIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Caps on a call's log lines (`limits.logs`), in UTF-8 bytes of a line's message and data JSON.
 * The runtime cuts at the per-call ones; the host counts again, and alone keeps the per-minute ones.
 */
export interface LogCaps {
  readonly linesPerCall: number;
  readonly bytesPerCall: number;
  readonly lineBytes: number;
  readonly linesPerMinute: number;
  readonly bytesPerMinute: number;
}

export interface CallRequest {
  readonly callId: string;
  readonly toolName: string;
  readonly toolUseId: string;
  readonly sessionId: string;
  readonly input: unknown;
  readonly config: unknown;
  /** The granted environment variables, by name. */
  readonly env: Readonly<Record<string, string>>;
  /** Names the plugin may read (declared and granted); others are refused by name. */
  readonly envGranted: readonly string[];
  /**
   * Most characters the reply may have as it leaves the isolate: a transport guard (copying out
   * is not bounded), not the result limit, which the host checks once in its own unit.
   */
  readonly maxReplyChars: number;
  /** The call's log caps; without them, the runtime's defaults (those of the host's config). */
  readonly logs?: LogCaps;
}

/**
 * What every call of one plugin shares, as its requests carry it (see `RuntimeEntry.begin`): the
 * same until the host's config for the plugin changes.
 */
export interface CallSettings {
  readonly env: CallRequest['env'];
  readonly envGranted: CallRequest['envGranted'];
  readonly maxReplyChars: number;
  readonly logs?: Partial<LogCaps>;
}

/** Between a call's own JSON and its settings' JSON: a character JSON text never has raw. */
export const REQUEST_SETTINGS_SEPARATOR = '\n';

/**
 * How a call's reply that is one text block (a tool that returned a string) leaves the isolate:
 * this mark, then the text as it is, not JSON. Every other reply is a `CallReply` as JSON, which
 * starts with `{`. The host then neither parses nor checks the reply's structure: any string is
 * a valid text block. It takes no escaping on the way out and no parsing or schema on the way in.
 */
export const TEXT_REPLY_MARK = 't';

/** What a call's reply says, once read (a text reply is an `ok` with its one text block). */
export type CallReply =
  | { readonly kind: 'ok'; readonly result: ToolResult }
  | { readonly kind: 'invalid-input'; readonly issues: readonly WireIssue[] }
  | { readonly kind: 'invalid-config'; readonly issues: readonly WireIssue[] }
  | { readonly kind: 'unknown-tool' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'too-large'; readonly size: number };

export interface HookRequest {
  readonly callId: string;
  readonly phase: 'before' | 'after';
  readonly event: {
    readonly sessionId: string;
    readonly toolUseId: string;
    readonly toolName: string;
    readonly input: unknown;
    readonly result?: ToolResult;
  };
  readonly config: unknown;
  /** As for a call: the most characters of JSON its verdict's reply may have. */
  readonly maxReplyChars: number;
  /** As for a call. */
  readonly logs?: LogCaps;
}

export type HookReply =
  | { readonly kind: 'ok'; readonly verdict: unknown }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'too-large'; readonly size: number };

export type CapabilityReply =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly error: string;
      /**
       * What plugin code reads as `error.code`: a system code (`ENOENT`, `EISDIR`, `ENOTDIR`,
       * `EEXIST`, `ENOTEMPTY`, …) or the host's (`not-granted`, `limit-exceeded`, `timeout`, …).
       */
      readonly code?: string;
    };

/** A tool as the plugin declares it: its descriptor but for owner and executor, which the host adds. */
export type ToolManifest = Omit<ToolDescriptor, 'owner' | 'executor'>;

export interface PluginManifest {
  readonly id: string;
  readonly version?: string;
  readonly description?: string;
  readonly permissions: PluginPermissions;
  readonly tools: readonly ToolManifest[];
  readonly hooks: { readonly before: boolean; readonly after: boolean };
  /** Problems of `plugins.<id>.config` against the plugin's schema; absent when it is valid. */
  readonly configIssues?: readonly WireIssue[];
  /** The JSON Schema of `plugins.<id>.config`, when the plugin has a config. */
  readonly configSchema?: unknown;
}

export type DescribeReply =
  | { readonly ok: true; readonly manifest: PluginManifest }
  | { readonly ok: false; readonly error: string; readonly toolNames?: readonly string[] };
