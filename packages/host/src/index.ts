export type {
  CapabilityLimits,
  CapabilityProvider,
  EffectivePermissions,
  MissingGrant,
  PluginGrants,
} from './capabilities/index.js';
export {
  createCapabilityProvider,
  DEFAULT_CAPABILITY_LIMITS,
  effectivePermissions,
  missingGrants,
} from './capabilities/index.js';
export type { ConfigIssue, ConfigOutcome } from './config/load.js';
export {
  ConfigError,
  configJsonSchema,
  formatConfigIssues,
  loadConfigFile,
  parseConfig,
} from './config/load.js';
export type { ToolhostConfig } from './config/schema.js';
export { configSchema } from './config/schema.js';
export type {
  AnthropicContentBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolResultContent,
  AnthropicToolUseBlock,
} from './core/dispatch/adapters/anthropic.js';
export { toAnthropicTool, toAnthropicToolResult } from './core/dispatch/adapters/anthropic.js';
export type { McpTool } from './core/dispatch/adapters/mcp.js';
export { toMcpTool } from './core/dispatch/adapters/mcp.js';
export type {
  OpenAIFunctionTool,
  OpenAIToolCall,
  OpenAIToolMessage,
} from './core/dispatch/adapters/openai.js';
export { toOpenAITool, toOpenAIToolMessage } from './core/dispatch/adapters/openai.js';
export type {
  ActivationResult,
  CallOptions,
  HostSnapshot,
  SessionOptions,
  ToolCheck,
  ToolRefusal,
  ToolShapes,
} from './core/dispatch/session.js';
export { Session } from './core/dispatch/session.js';
export { checkAvailabilityExpression, evaluateAvailability } from './core/filter/availability.js';
export { planRegistry } from './core/filter/plan.js';
export { buildToolPlan, compareDescriptors } from './core/filter/planner.js';
export { formatExecutor, formatOwner } from './core/refs.js';
export type { PolicyDecision, PolicySubject } from './core/register/policy.js';
export { groupsOf, isAllowedTool, matchesPattern } from './core/register/policy.js';
export { buildRegistry, SOURCE_ORDER } from './core/register/registry.js';
export { HookSet } from './core/wrap/hooks.js';
export { errorResult, resultText } from './core/wrap/results.js';
export type {
  CallLimits,
  CallObserver,
  CallOutcome,
  CallStatus,
  WrapperContext,
} from './core/wrap/wrapper.js';
export { callTool, DEFAULT_LIMITS } from './core/wrap/wrapper.js';
export type {
  ChangeListener,
  ErrorListener,
  HostChange,
  HostError,
  HostOptions,
  NewlyHidden,
  PluginsOptions,
} from './host/host.js';
export { createHost, ToolHost } from './host/host.js';
export type { ChangeBatch, ProjectWatcher, ProjectWatcherOptions } from './host/watch.js';
export { watchProject } from './host/watch.js';
export { createSandbox } from './sandbox/create.js';
export { InlineSandbox } from './sandbox/inline.js';
export type { ProcessSandboxOptions } from './sandbox/process.js';
export { ProcessSandbox } from './sandbox/process.js';
export type {
  CallSinks,
  CapabilityRunner,
  LimitName,
  Sandbox,
  SandboxCrash,
  SandboxLimits,
  SandboxOutcome,
} from './sandbox/types.js';
export { DEFAULT_SANDBOX_LIMITS } from './sandbox/types.js';
export type { McpHttpOptions, McpHttpServer } from './serve/http.js';
export { serveHttp } from './serve/http.js';
export type { McpSessionClose, McpSessionCloseReason } from './serve/http-sessions.js';
export type { McpServeOptions } from './serve/server.js';
export { createMcpServer } from './serve/server.js';
export type { McpStdioOptions } from './serve/stdio.js';
export { serveStdio } from './serve/stdio.js';
export type {
  BuiltinToolsOptions,
  ControlFileAccess,
  ControlKind,
  ControlPaths,
  ExecOptions,
  GrepOptions,
} from './sources/builtin/index.js';
export {
  ControlFileError,
  createBuiltinTools,
  isControlFileError,
  isWorkspaceEscapeError,
  resolveInside,
  WorkspaceEscapeError,
} from './sources/builtin/index.js';
export type { InProcessToolOptions } from './sources/in-process.js';
export { checkWithZod, inProcessTool } from './sources/in-process.js';
export type {
  McpBridgeOptions,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
} from './sources/mcp/bridge.js';
export { McpBridge } from './sources/mcp/bridge.js';
export type { BuildLimits } from './sources/plugins/build-limits.js';
export { DEFAULT_BUILD_LIMITS } from './sources/plugins/build-limits.js';
export type { BundleOptions, BundleOutcome, IncrementalBundler } from './sources/plugins/bundle.js';
export { bundlePlugin, createIncrementalBundler } from './sources/plugins/bundle.js';
export { discoverPlugins } from './sources/plugins/discover.js';
export type {
  LoadPluginsOptions,
  PluginLease,
  PluginLoad,
  PluginReport,
  PluginSettings,
  PluginStatus,
} from './sources/plugins/manager.js';
export { loadPlugin } from './sources/plugins/manager.js';
export { PluginSet } from './sources/plugins/plugin-set.js';
export type {
  AfterToolCallEvent,
  AfterToolCallHook,
  AfterToolCallResult,
  BeforeToolCallEvent,
  BeforeToolCallHook,
  BeforeToolCallResult,
  DiagnosticLevel,
  Disposer,
  ExecutionContext,
  InputCheck,
  InputIssue,
  RegisteredTool,
  Registry,
  RegistryDiagnostic,
  RegistryDiagnosticCode,
  ToolExecutor,
  ToolHooks,
  ToolPolicy,
  ToolSource,
  ToolSourceKind,
} from './types.js';
export { AsyncMutex } from './util/lock.js';
