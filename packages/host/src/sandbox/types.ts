import type * as protocol from '@toolhost/plugin-sdk/protocol';
import type { IsolateSettings } from '../config/isolates.js';
import type { CodeModeLimits, SandboxLimits } from '../config/limits.js';
import type { JailMode, Walls } from '../jail/index.js';
import type { Cancellation } from '../util/cancel.js';
import type { ProcessMemory } from '../util/memory.js';

export type { IsolateSettings } from '../config/isolates.js';
export { DEFAULT_ISOLATE_SETTINGS } from '../config/isolates.js';
export type { CodeModeLimits, SandboxLimits } from '../config/limits.js';
export { DEFAULT_SANDBOX_LIMITS } from '../config/limits.js';

/** The isolates of a sandbox now, and how they come and go. */
export interface IsolateStats extends IsolateSettings {
  /** Isolates alive now: plugins' (retired ones still draining included) and describes'. */
  readonly live: number;
  /**
   * Isolates disposed while their version stayed loaded, since the process holding them started:
   * idle for `idleMs`, or the least recently used idle one at the `maxLive` cap.
   */
  readonly evicted: { readonly idle: number; readonly cap: number };
  /** Code-mode scripts' isolates alive now (each lives for one `run_code`), not counted in `live`. */
  readonly scripts: number;
  /** The memory of the process holding the isolates (the executor's, or the host's when inline), bytes. */
  readonly memory?: ProcessMemory;
  /** How the isolates of each prelude (`base`, `full`) made in that process so far start. */
  readonly preludes?: Partial<Record<'base' | 'full', PreludeStart>>;
  /** The executor's polling after its answers (util/hot-loop.ts): its limit, µs, and the turns it polled. */
  readonly polling?: { readonly micros: number; readonly turns: number };
}

/**
 * From the prelude's V8 snapshot, taken with its warm-up (prelude-warmup.ts); from one taken
 * without it, when the warm-up failed (`snapshot-unwarmed`: isolates compile what they run); or,
 * when V8 could not make a snapshot, evaluating the prelude from the code cache.
 */
export type PreludeStart = 'snapshot' | 'snapshot-unwarmed' | 'code-cache';

/** Which limit ended a call; `crashed` is an isolate or executor process that died, `cancelled` a caller that left first. */
export type LimitName = 'cancelled' | 'cpuMs' | 'crashed' | 'maxResultChars' | 'memoryMb' | 'timeoutMs';

/** What the process holding the isolates needs from the host for one plugin's calls. */
export interface IsolateHandlers {
  log(callId: string, level: string, message: string, dataJson: string): void;
  progress(callId: string, done: number, total: number, message: string): void;
  /** Runs a capability; resolves with a JSON `CapabilityReply`, never rejects. */
  request(callId: string, capability: string, argsJson: string): Promise<string>;
}

/** What a tool call made from a script answers the script: its value as JSON, or why it failed. */
export type CodeToolReply =
  | { readonly ok: true; readonly json: string }
  | { readonly ok: false; readonly message: string };

/** How a script ended: it returned, it threw, or a limit stopped it. */
export type CodeOutcome =
  | {
      readonly kind: 'returned';
      /** What the script returned, as JSON parsed back (`undefined` when it returned nothing). */
      readonly value: unknown;
      readonly log: string;
      readonly droppedLogChars: number;
    }
  | { readonly kind: 'threw'; readonly error: string; readonly log: string; readonly droppedLogChars: number }
  | { readonly kind: 'limit'; readonly limit: CodeLimitName; readonly message: string };

/** The limits that can stop a script: a sandbox's, and its count of tool calls. */
export type CodeLimitName = LimitName | 'maxToolCalls';

/** What one code-mode run needs from the host: its limits, how to call a tool, and when to stop. */
export interface CodeRunOptions {
  readonly limits: CodeModeLimits;
  /**
   * Calls a tool through the invoking session's full wrapper; never rejects. Runs on the host
   * whichever process holds the script's isolate; `signal` aborts when the run ends.
   */
  callTool(name: string, inputJson: string, signal: AbortSignal): Promise<CodeToolReply>;
  /** Cancels the run, and with it its tool calls in flight. */
  readonly signal?: AbortSignal;
}

/** A sandbox answer: the runtime's reply, or the limit that ended the call. */
export type SandboxOutcome<R> =
  | { readonly kind: 'reply'; readonly reply: R }
  | { readonly kind: 'limit'; readonly limit: LimitName; readonly message: string };

/** Observers of one call's log lines and progress. */
export interface CallSinks {
  log(level: string, message: string, data: unknown): void;
  progress(done: number, total: number | undefined, message: string | undefined): void;
}

/** An executor process death charged to one plugin: it was the only plugin running there. */
export interface SandboxCrash {
  readonly pluginId: string;
  /** The version whose calls were running (the newest, if several were). */
  readonly version: number;
  /** How the process ended, for people. */
  readonly message: string;
}

/** Runs a plugin capability on the host for one call. */
export type CapabilityRunner = (capability: string, args: unknown, signal: AbortSignal) => Promise<unknown>;

/**
 * Where plugin code runs. Two implementations: isolates in this process (`inline`) or in a
 * supervised executor process (`process`). The host sees only this interface.
 */
export interface Sandbox {
  readonly mode: 'inline' | 'process';
  /** The walls around the code it runs: the isolate, and the executor's jail (`process` only). */
  readonly walls: Walls;
  /**
   * A plugin is being built and will be described next: get ready for it now, so that the
   * readying overlaps the build (`process`: the executor process is started, when none runs and
   * the jail rule allows one). Optional to call; a start that builds nothing (every bundle and
   * manifest cached) never starts one this way.
   */
  warm?(): void;
  /** Reads a bundle's manifest in a throwaway isolate; no executor runs. */
  describe(
    bundle: string,
    configJson: string,
    limits: SandboxLimits,
  ): Promise<SandboxOutcome<protocol.DescribeReply>>;
  /**
   * Takes a hold on `bundle` as a version of `pluginId` and returns the version number that calls
   * name. Loading the same bundle and limits as the plugin's newest version takes another hold on
   * that version (its isolate is kept). Versions live side by side: each call runs on the one it
   * names. The isolate is created on the first call.
   */
  load(pluginId: string, bundle: string, limits: SandboxLimits): number;
  /**
   * Lets go of one hold taken by `load`. When the last hold goes, the version is forgotten and its
   * isolate is disposed once the calls already running there have ended.
   */
  unload(pluginId: string, version: number): void;
  call(
    pluginId: string,
    version: number,
    request: protocol.CallRequest,
    capabilities: CapabilityRunner,
    sinks: CallSinks,
    /** The call's cancellation (an `AbortSignal` will do; a `Cancellation` spares making one). */
    cancel: Cancellation | AbortSignal,
  ): Promise<SandboxOutcome<protocol.CallReply>>;
  hook(
    pluginId: string,
    version: number,
    request: protocol.HookRequest,
    sinks: CallSinks,
  ): Promise<SandboxOutcome<protocol.HookReply>>;
  /**
   * Hears of every executor process death charged to one plugin (never in `inline` mode, where
   * such a death ends the host). The host decides about quarantine. Returns the disposer.
   */
  onCrash(listener: (crash: SandboxCrash) => void): () => void;
  /**
   * Runs a code-mode script (the body of an async function) in a fresh isolate of this sandbox,
   * disposed when the run ends: in this process (`inline`) or in the executor process, each tool
   * call coming back here to `options.callTool`. Never rejects: every end is a `CodeOutcome`. A
   * script is not a plugin: an executor death while one runs is charged to no plugin.
   */
  runScript(source: string, options: CodeRunOptions): Promise<CodeOutcome>;
  /** Live isolates (for leak checks and diagnostics). */
  isolateCount(): Promise<number>;
  /** Live isolates, the settings in force and how many were evicted. */
  isolateStats(): Promise<IsolateStats>;
  /**
   * When idle isolates go; applies at once (over a lower cap, idle isolates go now). A sandbox
   * starts with `DEFAULT_ISOLATE_SETTINGS` unless created with others.
   */
  configureIsolates(settings: IsolateSettings): void;
  close(): Promise<void>;
}

/** How a `ProcessSandbox` supervises its executor process. */
export interface ProcessSandboxOptions {
  /** The executor script; default the built `executor-main.js`. */
  readonly entry?: string;
  /** A new executor process must say it is ready within this, ms; default 10 000. */
  readonly startupTimeoutMs?: number;
  /**
   * A busy executor must answer a ping within this, ms, beyond the longest CPU budget of a live
   * plugin (a sync entry may hold its thread that long), or it is killed; default 5 000.
   */
  readonly heartbeatMs?: number;
  /** When the executor's idle isolates go; default `DEFAULT_ISOLATE_SETTINGS`. */
  readonly isolates?: IsolateSettings;
  /** Whether the executor runs in the OS jail (`sandbox.jail`); default `auto`. */
  readonly jail?: JailMode;
  /**
   * How long, at most, this process keeps polling instead of sleeping while it waits for an
   * answer, and the executor after its reads and answers, µs (`sandbox.pollMicros`; util/hot-loop.ts: each
   * polls about twice as long as its waits usually take). Default `defaultPollMicros()`: 100 with
   * two CPUs or more, 0 with one.
   */
  readonly pollMicros?: number;
}
