/**
 * `@toolhost/host/internal`: the host's implementation parts, for this repository's own tests and
 * benchmarks. Not a public API: any name here may change or go in any release, without notice.
 * Applications import `@toolhost/host` only; a name needed there is moved to `index.ts` on
 * purpose (and leaves this file: a name is public or internal, never both).
 */

export {
  type CapabilityLimits,
  type CapabilityProvider,
  createCapabilityProvider,
  DEFAULT_CAPABILITY_LIMITS,
  type EffectivePermissions,
  effectivePermissions,
  type MissingGrant,
  missingGrants,
} from './capabilities/index.js';
export { formatConfigIssues } from './config/load.js';
export type { HostSnapshot } from './core/dispatch/session.js';
export { checkAvailabilityExpression } from './core/filter/availability.js';
export { planRegistry } from './core/filter/plan.js';
export { compareDescriptors } from './core/filter/planner.js';
export { formatExecutor, formatOwner } from './core/refs.js';
export {
  groupsOf,
  isAllowedTool,
  matchesPattern,
  type PolicyDecision,
  type PolicySubject,
} from './core/register/policy.js';
export { buildRegistry, SOURCE_ORDER } from './core/register/registry.js';
export { HookSet } from './core/wrap/hooks.js';
export { errorResult } from './core/wrap/results.js';
export { callTool, type WrapperContext } from './core/wrap/wrapper.js';
export { type HostInternals, internalsOf } from './host/internals.js';
export {
  type ChangeBatch,
  type ProjectWatcher,
  type ProjectWatcherOptions,
  watchProject,
} from './host/watch.js';
export { createSandbox } from './sandbox/create.js';
export { endedAs, executorPlacement, spawnExecutor } from './sandbox/executor-spawn.js';
export { InlineSandbox } from './sandbox/inline.js';
export { ProcessSandbox, type ProcessSandboxOptions } from './sandbox/process.js';
export { liveScriptIsolates } from './sandbox/script-runner.js';
export type {
  CallSinks,
  CapabilityRunner,
  CodeRunOptions,
  LimitName,
  Sandbox,
  SandboxCrash,
  SandboxOutcome,
} from './sandbox/types.js';
export { createMcpServer } from './serve/server.js';
export { type InFlightRecorder, serveStdioRecorded } from './serve/stdio.js';
export {
  ControlFileError,
  type ControlKind,
  type ControlPaths,
  createBuiltinTools,
  isControlFileError,
  isWorkspaceEscapeError,
  resolveInside,
  WorkspaceEscapeError,
} from './sources/builtin/index.js';
export { checkWithZod, type InProcessToolOptions, inProcessTool } from './sources/in-process.js';
export { McpBridge, type McpBridgeOptions } from './sources/mcp/bridge.js';
export { type BuildLimits, DEFAULT_BUILD_LIMITS } from './sources/plugins/build-limits.js';
export {
  type BundleOptions,
  type BundleOutcome,
  bundlePlugin,
  createIncrementalBundler,
  type IncrementalBundler,
} from './sources/plugins/bundle.js';
export { discoverPlugins } from './sources/plugins/discover.js';
export { loadPlugin } from './sources/plugins/load.js';
export { PluginSet } from './sources/plugins/plugin-set.js';
export type { LoadPluginsOptions, PluginLease, PluginLoad } from './sources/plugins/types.js';
export type { Registry } from './types.js';
export { DEFAULT_POLL_MICROS, defaultPollMicros, HotLoop, PROBE_EVERY } from './util/hot-loop.js';
export { AsyncMutex } from './util/lock.js';
