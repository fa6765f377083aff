/**
 * Every limit of a call, resolved in one place from the config file and the options given in code.
 * This is the one statement of how they combine:
 *
 * | limit | default | what it bounds |
 * |---|---|---|
 * | `limits.timeoutMs` | 30 s | wall clock of one call's executor, for every tool |
 * | a source's own wall clock: `plugins.<id>.limits.timeoutMs`, else `limits.plugin.timeoutMs` (plugin tools); `limits.mcpCallTimeoutMs` (bridged MCP tools); `builtins.exec.timeoutMs` (exec) | `limits.timeoutMs` | **replaces** `limits.timeoutMs` for that source's tools, higher or lower |
 * | `limits.hookTimeoutMs` | 10 s | each hook, apart from the executor's time |
 * | `cpuMs` (plugins) | 10 s | CPU time inside the isolate; acts within the wall clock |
 * | `memoryMb` (plugins) | 64 | the isolate's heap |
 * | `limits.maxResultChars` | 4,000,000 | characters of text and data in one result's content blocks, for every tool, checked once by the wrapper |
 * | a plugin's own: `plugins.<id>.limits.maxResultChars`, else `limits.plugin.maxResultChars` | `limits.maxResultChars` | **replaces** `limits.maxResultChars` for that plugin's tools, higher or lower (same unit, same one check) |
 * | `limits.codeMode.maxResultChars` | 20,000 | characters of a `run_code` script's returned value as JSON, checked inside its isolate |
 * | capability limits (`fetchTimeoutMs` 10 s, …) | | one `ctx.fetch`/`ctx.fs` request; the call's signal ends it sooner |
 * | `limits.skillFileBytes` | 256 KiB | one SKILL.md: at most this many bytes are read, and a larger file is hidden |
 * | `fsConcurrency` (plugins) | 2 | one plugin's `ctx.fs` operations running at once; the rest wait their turn |
 *
 * The wrapper enforces the wall clock that applies to a tool — one deadline per call — and its
 * error names the setting that set it. At the deadline it aborts the call's signal, which ends
 * the executor's work. The sources that set a wall clock of their own also enforce it
 * (`selfEnforced`), because they can end the work better than an abort can: a plugin's sandbox
 * alone can stop an isolate for good (it aborts `ctx.signal` inside the isolate, then resets it),
 * the MCP client cancels the request and names the server that did not answer, exec kills its
 * process and still returns the output so far. For them the wrapper's deadline is a backstop
 * {@link BACKSTOP_MS} later.
 *
 * A plugin's reply is also bounded inside its isolate, because copying out of an isolate is not
 * limited: that bound is not a limit of its own but a transport guard derived from the plugin's
 * `maxResultChars` ({@link replyCharsFor}), roomy enough that a result within its limit passes it.
 *
 * Every millisecond value is at most {@link MAX_TIMER_MS} (2^31 − 1, the most a Node timer holds;
 * a larger one fires at once): the config schema refuses more, and values given in code are
 * capped here.
 */
import { MAX_TIMER_MS } from '../util/timers.js';
import type { ToolhostConfig } from './schema.js';

export { MAX_TIMER_MS };

/** Per-call limits the wrapper enforces for every executor kind. */
export interface CallLimits {
  /** Wall-clock limit of the executor, ms, for tools whose source sets none of its own. */
  readonly timeoutMs: number;
  /** Wall-clock limit of each hook, ms: a hung hook must not hold the session lock forever. */
  readonly hookTimeoutMs: number;
  /** Largest result (text and data characters), beyond which the result is replaced by an error. */
  readonly maxResultChars: number;
}

/** A source's own result limit for its tools (plugins'), and how to raise it (for messages). */
export interface OwnResultLimit {
  readonly chars: number;
  /** What to change to allow more: the message's end. */
  readonly raise: string;
}

/** The call limits in force when neither the config nor the code sets them. */
export const DEFAULT_LIMITS: CallLimits = {
  timeoutMs: 30_000,
  hookTimeoutMs: 10_000,
  maxResultChars: 4_000_000,
};

/** Limits of one plugin's calls and isolate. */
export interface SandboxLimits {
  /** Isolate heap limit, MB (isolated-vm's limit is soft: V8 may overrun it 2-3×). */
  readonly memoryMb: number;
  /** Wall-clock limit of one call, ms. */
  readonly timeoutMs: number;
  /** CPU time one call may use inside the isolate, ms. */
  readonly cpuMs: number;
  /**
   * Largest result of one of its calls: characters of text and data in its content blocks
   * (the wrapper's one check; the isolate's reply guard follows from it, {@link replyCharsFor}).
   */
  readonly maxResultChars: number;
}

/**
 * The most characters a plugin's reply may have when it leaves the isolate, for a result
 * limit of `maxResultChars`: the transport guard that keeps a huge value from being copied out
 * (isolated-vm does not bound a copy). Twice the limit and 64 Ki: room for the content as JSON
 * and a `structuredContent` that mirrors it, so the result limit is what a result meets first;
 * only a reply far over it (or with a huge `structuredContent`) stops here.
 */
export function replyCharsFor(maxResultChars: number): number {
  return Math.min(2 * maxResultChars + 65_536, Number.MAX_SAFE_INTEGER);
}

/** Sandbox limits that do not follow the call limits. */
const SANDBOX_OWN_DEFAULTS = { memoryMb: 64, cpuMs: 10_000 } as const;

/** A plugin's limits when neither `limits.plugin` nor `plugins.<id>.limits` sets them. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  ...SANDBOX_OWN_DEFAULTS,
  timeoutMs: DEFAULT_LIMITS.timeoutMs,
  maxResultChars: DEFAULT_LIMITS.maxResultChars,
};

/** A source's own wall-clock limit for its tools, and the setting it came from (for messages). */
export interface OwnDeadline {
  readonly ms: number;
  readonly setting: string;
  /** The executor stops the call itself at `ms` (plugins); the wrapper only keeps a backstop. */
  readonly selfEnforced?: true;
}

/** Every limit, resolved. */
export interface LimitsTable {
  readonly call: CallLimits;
  /** The sandbox limits every plugin starts from (`limits.plugin` over the call limits). */
  readonly pluginDefaults: SandboxLimits;
  /** The capability limits of `limits.plugin` every plugin starts from. */
  readonly pluginCapabilities: Partial<ConfigurableCapabilityLimits>;
  /** Where `pluginDefaults.timeoutMs` came from. */
  readonly pluginTimeoutSetting: string;
  /** Wall clock of one call to a bridged MCP server. */
  readonly mcpCall: OwnDeadline;
  /** The limits of one `run_code` script (`limits.codeMode` over its defaults). */
  readonly codeMode: CodeModeLimits;
  /** Largest SKILL.md the skills source reads, bytes. */
  readonly skillFileBytes: number;
  /** Caps on plugins' log lines (`limits.logs` over its defaults). */
  readonly logs: LogLimits;
}

/** A SKILL.md holds a description and instructions: 256 KiB is far more than one needs. */
export const DEFAULT_SKILL_FILE_BYTES = 256 * 1024;

/**
 * Caps on a plugin's log lines (`ctx.log`, `console`), in UTF-8 bytes of the message and its
 * data's JSON. The per-call caps travel to the isolate, whose runtime cuts first; the host cuts
 * again, and alone keeps the per-minute ones (every call of one plugin together).
 */
export interface LogLimits {
  readonly linesPerCall: number;
  readonly bytesPerCall: number;
  readonly lineBytes: number;
  readonly linesPerMinute: number;
  readonly bytesPerMinute: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = {
  linesPerCall: 1000,
  bytesPerCall: 1024 * 1024,
  lineBytes: 16 * 1024,
  linesPerMinute: 6000,
  bytesPerMinute: 8 * 1024 * 1024,
};

/** Limits of one code-mode script: a sandbox's, and how much console output it keeps. */
export interface CodeModeLimits extends SandboxLimits {
  /** Characters of console output kept; the rest is counted and dropped. */
  readonly maxLogChars: number;
  /** Tool calls one script may make; the next one stops the script. */
  readonly maxToolCalls: number;
  /** Largest script source, characters; a larger one is refused before any isolate sees it. */
  readonly maxSourceChars: number;
}

/**
 * Code mode's own defaults: its result enters the model's context whole, so it is kept far
 * smaller than a tool's; its wall clock is the call limit's (its tool calls have their own).
 */
const CODE_MODE_OWN_DEFAULTS = {
  memoryMb: 64,
  cpuMs: 5_000,
  maxResultChars: 20_000,
  maxLogChars: 10_000,
  maxToolCalls: 100,
  maxSourceChars: 100_000,
} as const;

/** How much later than a self-enforced limit the wrapper's backstop fires. */
export const BACKSTOP_MS = 1_000;

/** Limits given in code; each wins over the config file's. */
export interface LimitOverrides {
  readonly call?: Partial<CallLimits>;
  readonly plugin?: Partial<SandboxLimits>;
  readonly mcpCallTimeoutMs?: number;
  readonly codeMode?: Partial<CodeModeLimits>;
  readonly logs?: Partial<LogLimits>;
}

/** A millisecond value a timer can hold: at most {@link MAX_TIMER_MS}. */
export function timerMs(value: number): number {
  return Math.min(value, MAX_TIMER_MS);
}

function capTimes<T extends object>(limits: T): T {
  const out = { ...limits } as Record<string, unknown>;
  for (const key of ['timeoutMs', 'hookTimeoutMs', 'cpuMs'] as const) {
    const value = out[key];
    if (typeof value === 'number') out[key] = timerMs(value);
  }
  return out as T;
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The capability limits config may set, in `limits.plugin` or `plugins.<id>.limits`. */
export type ConfigurableCapabilityLimits = Pick<
  CapabilityLimits,
  'fetchTimeoutMs' | 'fetchMaxBytes' | 'fetchConcurrency' | 'fsConcurrency'
>;

/** A plugin-limits object of config split into what the sandbox enforces and what capabilities do. */
function splitPluginLimits<T extends Partial<SandboxLimits & ConfigurableCapabilityLimits>>(
  limits: T | undefined,
): { sandbox: Partial<SandboxLimits>; capability: Partial<ConfigurableCapabilityLimits> } {
  const { fetchTimeoutMs, fetchMaxBytes, fetchConcurrency, fsConcurrency, ...sandbox } = limits ?? ({} as T);
  return {
    sandbox: definedOnly(sandbox),
    capability: definedOnly({ fetchTimeoutMs, fetchMaxBytes, fetchConcurrency, fsConcurrency }),
  };
}

/** Resolves the call, plugin-default and MCP limits from config and code, by the rule above. */
export function resolveLimits(config: ToolhostConfig['limits'], overrides: LimitOverrides = {}): LimitsTable {
  const {
    plugin: configPluginAll,
    mcpCallTimeoutMs: configMcp,
    codeMode: configCodeMode,
    skillFileBytes,
    logs: configLogs,
    ...configCall
  } = config ?? {};
  const { sandbox: configPlugin, capability: pluginCapabilities } = splitPluginLimits(configPluginAll);
  const call = capTimes({ ...DEFAULT_LIMITS, ...definedOnly(configCall), ...definedOnly(overrides.call) });
  const pluginOwn = { ...definedOnly(configPlugin), ...definedOnly(overrides.plugin) };
  const pluginDefaults = capTimes({
    ...SANDBOX_OWN_DEFAULTS,
    timeoutMs: call.timeoutMs,
    maxResultChars: call.maxResultChars,
    ...pluginOwn,
  });
  const mcpMs = overrides.mcpCallTimeoutMs ?? configMcp;
  return {
    call,
    pluginDefaults,
    pluginCapabilities,
    pluginTimeoutSetting: pluginOwn.timeoutMs === undefined ? 'limits.timeoutMs' : 'limits.plugin.timeoutMs',
    // The SDK client cancels a request at its timeout (notifications/cancelled) and says which
    // server did not answer: MCP calls stop themselves, like plugin calls.
    mcpCall:
      mcpMs === undefined
        ? { ms: call.timeoutMs, setting: 'limits.timeoutMs', selfEnforced: true }
        : { ms: timerMs(mcpMs), setting: 'limits.mcpCallTimeoutMs', selfEnforced: true },
    codeMode: capTimes({
      ...CODE_MODE_OWN_DEFAULTS,
      timeoutMs: call.timeoutMs,
      ...definedOnly(configCodeMode),
      ...definedOnly(overrides.codeMode),
    }),
    skillFileBytes: skillFileBytes ?? DEFAULT_SKILL_FILE_BYTES,
    logs: { ...DEFAULT_LOG_LIMITS, ...definedOnly(configLogs), ...definedOnly(overrides.logs) },
  };
}

/**
 * One plugin's limits: its own `plugins.<id>.limits` over the defaults, for the sandbox and for
 * its capabilities.
 */
export function pluginLimits(
  table: LimitsTable,
  pluginId: string,
  ownAll: Partial<SandboxLimits & ConfigurableCapabilityLimits> | undefined,
): {
  readonly limits: SandboxLimits;
  readonly timeout: OwnDeadline;
  readonly capabilities: Partial<ConfigurableCapabilityLimits>;
} {
  const { sandbox: own, capability } = splitPluginLimits(ownAll);
  const capabilities = { ...table.pluginCapabilities, ...capability };
  const limits = capTimes({ ...table.pluginDefaults, ...own });
  const setting =
    own?.timeoutMs === undefined ? table.pluginTimeoutSetting : `plugins.${pluginId}.limits.timeoutMs`;
  return { limits, timeout: { ms: limits.timeoutMs, setting, selfEnforced: true }, capabilities };
}

/**
 * Exec's wall clock: `builtins.exec.timeoutMs`, else the call limit. Exec kills its process at it
 * and still answers with the output so far, so it stops itself too.
 */
export function execDeadline(callTimeoutMs: number, own: number | undefined): OwnDeadline {
  return own === undefined
    ? { ms: timerMs(callTimeoutMs), setting: 'limits.timeoutMs', selfEnforced: true }
    : { ms: timerMs(own), setting: 'builtins.exec.timeoutMs', selfEnforced: true };
}

/** How to allow more of a plugin's limit `key`: the config key that raises it, for messages. */
export function raiseHint(
  pluginId: string,
  key: keyof SandboxLimits | keyof ConfigurableCapabilityLimits,
): string {
  return `raise plugins.${pluginId}.limits.${key} in the config to allow more`;
}

/** Limits applied to every capability request of one plugin. */
export interface CapabilityLimits {
  /** Wall-clock limit of one `ctx.fetch`, every redirect hop and the body read included. */
  readonly fetchTimeoutMs: number;
  /** Largest request body and largest response body of `ctx.fetch`, in bytes. */
  readonly fetchMaxBytes: number;
  /** Redirect hops `ctx.fetch` follows before refusing. */
  readonly fetchMaxRedirects: number;
  /** `ctx.fetch` requests of one plugin in flight at once; more wait their turn. */
  readonly fetchConcurrency: number;
  /** Largest file `ctx.fs.readFile` reads and `ctx.fs.writeFile` writes, in bytes. */
  readonly fsMaxBytes: number;
  /**
   * The plugin's `ctx.fs` operations running at once; more wait their turn. Each may hold a
   * thread of libuv's pool (4 by default), which the host's own file operations share.
   */
  readonly fsConcurrency: number;
}

export const DEFAULT_CAPABILITY_LIMITS: CapabilityLimits = {
  fetchTimeoutMs: 10_000,
  fetchMaxBytes: 5 * 1024 * 1024,
  fetchMaxRedirects: 5,
  fetchConcurrency: 8,
  fsMaxBytes: 5 * 1024 * 1024,
  fsConcurrency: 2,
};

/**
 * A plugin's capability limits: the defaults with the overrides given in code; each must be a
 * non-negative integer (`fetchConcurrency` a positive one: no slot would never let a fetch run),
 * and `fetchTimeoutMs` is capped at what a timer holds. A capability also ends with its call: the
 * call's own limit (above) ends it sooner.
 */
export function capabilityLimits(overrides: Partial<CapabilityLimits> | undefined): CapabilityLimits {
  const limits = { ...DEFAULT_CAPABILITY_LIMITS };
  for (const key of Object.keys(DEFAULT_CAPABILITY_LIMITS) as (keyof CapabilityLimits)[]) {
    const value = overrides?.[key];
    if (value === undefined) continue;
    if (key === 'fetchConcurrency' && !(Number.isSafeInteger(value) && value > 0)) {
      throw new Error(`capability limit ${key} must be a positive integer, got ${String(value)}`);
    }
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new Error(`capability limit ${key} must be a non-negative integer, got ${String(value)}`);
    }
    limits[key] = key === 'fetchTimeoutMs' ? timerMs(value) : value;
  }
  return limits;
}
