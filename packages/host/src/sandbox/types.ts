import type {
  CallReply,
  CallRequest,
  DescribeReply,
  HookReply,
  HookRequest,
} from '@toolhost/plugin-sdk/protocol';

import type { IsolateSettings } from '../config/isolates.js';
import type { SandboxLimits } from '../config/limits.js';
import type { Cancellation } from '../util/cancel.js';

export type { IsolateSettings } from '../config/isolates.js';
export { DEFAULT_ISOLATE_SETTINGS } from '../config/isolates.js';
export type { SandboxLimits } from '../config/limits.js';
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
}

/** Which limit ended a call; `crashed` is an isolate or executor process that died, `cancelled` a caller that left first. */
export type LimitName = 'cancelled' | 'cpuMs' | 'crashed' | 'maxResultChars' | 'memoryMb' | 'timeoutMs';

/** What the process holding the isolates needs from the host for one plugin's calls. */
export interface IsolateHandlers {
  log(callId: string, level: string, message: string, dataJson: string): void;
  progress(callId: string, done: number, total: number, message: string): void;
  /** Runs a capability; resolves with a JSON `CapabilityReply`, never rejects. */
  request(callId: string, capability: string, argsJson: string): Promise<string>;
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
  /** Reads a bundle's manifest in a throwaway isolate; no executor runs. */
  describe(bundle: string, configJson: string, limits: SandboxLimits): Promise<SandboxOutcome<DescribeReply>>;
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
    request: CallRequest,
    capabilities: CapabilityRunner,
    sinks: CallSinks,
    /** The call's cancellation (an `AbortSignal` will do; a `Cancellation` spares making one). */
    cancel: Cancellation | AbortSignal,
  ): Promise<SandboxOutcome<CallReply>>;
  hook(
    pluginId: string,
    version: number,
    request: HookRequest,
    sinks: CallSinks,
  ): Promise<SandboxOutcome<HookReply>>;
  /**
   * Hears of every executor process death charged to one plugin (never in `inline` mode, where
   * such a death ends the host). The host decides about quarantine. Returns the disposer.
   */
  onCrash(listener: (crash: SandboxCrash) => void): () => void;
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
