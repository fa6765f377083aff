export type {
  AnthropicContentBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolResultContent,
  AnthropicToolUseBlock,
} from './adapters/anthropic.js';
export { toAnthropicTool, toAnthropicToolResult } from './adapters/anthropic.js';
export type { McpTool } from './adapters/mcp.js';
export { toMcpTool } from './adapters/mcp.js';
export type { OpenAIFunctionTool, OpenAIToolCall, OpenAIToolMessage } from './adapters/openai.js';
export { toOpenAITool, toOpenAIToolMessage } from './adapters/openai.js';
export { checkAvailabilityExpression, evaluateAvailability } from './availability.js';
export type {
  BuiltinToolsOptions,
  ControlFileAccess,
  ControlKind,
  ControlPaths,
  ExecOptions,
  GrepOptions,
} from './builtins/index.js';
export {
  ControlFileError,
  createBuiltinTools,
  isControlFileError,
  isWorkspaceEscapeError,
  resolveInside,
  WorkspaceEscapeError,
} from './builtins/index.js';
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
export { HookSet } from './hooks.js';
export type {
  ChangeListener,
  ErrorListener,
  HostChange,
  HostError,
  HostOptions,
  NewlyHidden,
  PluginsOptions,
} from './host.js';
export { createHost, ToolHost } from './host.js';
export type { InProcessToolOptions } from './in-process.js';
export { checkWithZod, inProcessTool } from './in-process.js';
export { AsyncMutex } from './lock.js';
export type { McpBridgeOptions, McpServerConfig, McpServerState, McpServerStatus } from './mcp/bridge.js';
export { McpBridge } from './mcp/bridge.js';
export type { McpHttpOptions, McpHttpServer } from './mcp/http.js';
export { serveHttp } from './mcp/http.js';
export type { McpSessionClose, McpSessionCloseReason } from './mcp/http-sessions.js';
export type { McpServeOptions } from './mcp/server.js';
export { createMcpServer } from './mcp/server.js';
export type { McpStdioOptions } from './mcp/stdio.js';
export { serveStdio } from './mcp/stdio.js';
export { planRegistry } from './plan.js';
export { buildToolPlan, compareDescriptors } from './planner.js';
export type { BuildLimits } from './plugins/build-limits.js';
export { DEFAULT_BUILD_LIMITS } from './plugins/build-limits.js';
export type { BundleOptions, BundleOutcome, IncrementalBundler } from './plugins/bundle.js';
export { bundlePlugin, createIncrementalBundler } from './plugins/bundle.js';
export { discoverPlugins } from './plugins/discover.js';
export type {
  LoadPluginsOptions,
  PluginLease,
  PluginLoad,
  PluginReport,
  PluginSettings,
  PluginStatus,
} from './plugins/manager.js';
export { loadPlugin } from './plugins/manager.js';
export { PluginSet } from './plugins/plugin-set.js';
export type { PolicyDecision, PolicySubject } from './policy.js';
export { groupsOf, isAllowedTool, matchesPattern } from './policy.js';
export { formatExecutor, formatOwner } from './refs.js';
export { buildRegistry, SOURCE_ORDER } from './registry.js';
export { errorResult, resultText } from './results.js';
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
export type {
  ActivationResult,
  CallOptions,
  HostSnapshot,
  SessionOptions,
  ToolCheck,
  ToolRefusal,
  ToolShapes,
} from './session.js';
export { Session } from './session.js';
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
export type { ChangeBatch, ProjectWatcher, ProjectWatcherOptions } from './watch.js';
export { watchProject } from './watch.js';
export type { CallLimits, CallObserver, CallOutcome, CallStatus, WrapperContext } from './wrapper.js';
export { callTool, DEFAULT_LIMITS } from './wrapper.js';
