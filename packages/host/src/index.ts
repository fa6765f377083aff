/**
 * The public API of `@toolhost/host`: what an application builds on to embed toolhost. Each name
 * here is a promise; renaming or removing one is a breaking change, and `test/public-api.test.ts`
 * pins the list so that a change to it is deliberate. Everything else (sandboxes, the plugin
 * loader, the MCP bridge, the registry builder, locks…) is an implementation detail: it lives
 * behind `@toolhost/host/internal` (for this repository's tests and benchmarks) or is not
 * exported at all, and may change in any release.
 *
 * The contracts shared with plugin authors (descriptors, plans, results, availability) are
 * declared in `@toolhost/plugin-sdk`; the ones this API's signatures use are re-exported here.
 */

// The host: create one, read its plan, hand out sessions, listen for changes.

export { createHost, type ToolHost } from './host/host.js';
export type {
  ChangeListener,
  ErrorListener,
  HostChange,
  HostCodeOptions,
  HostError,
  HostMcpOptions,
  HostOptions,
  NewlyHidden,
  ToolhostConfigInput,
} from './host/types.js';

// A session: the tools one conversation sees, and dispatch of the model's calls.

export type {
  ApprovalAnswer,
  ApprovalChoice,
  ApprovalDecision,
  ApprovalEvent,
  ApprovalHandler,
  ApprovalQueue,
  ApprovalRequest,
  ApprovalSource,
  PendingApproval,
} from './core/dispatch/approvals.js';
export type {
  ChannelCallContext,
  ChannelOptions,
  ChannelSender,
  ChannelTool,
  ChannelToolContext,
  ChannelToolReturn,
} from './core/dispatch/channel.js';
export type {
  ActivationResult,
  CallOptions,
  DeferralModes,
  DeferredToolShapes,
  Session,
  SessionOptions,
  ToolCheck,
  ToolRefusal,
  ToolShapes,
  ToolsOptions,
} from './core/dispatch/session.js';
export type { Skill, SkillArgMode, SkillDispatchInput } from './core/dispatch/skills.js';
export type { SearchHit } from './core/search/index.js';
export { resultText } from './core/wrap/results.js';
export type { CallObserver, CallOutcome, CallStatus } from './core/wrap/wrapper.js';

// Hooks, policy, and the tool sources a host merges (the `setSource` API).

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
  HookApprovalRequest,
  InputAsker,
  InputCheck,
  InputIssue,
  Principal,
  RegisteredTool,
  RegistryDiagnostic,
  RegistryDiagnosticCode,
  ToolCatalogPolicy,
  ToolExecutor,
  ToolHooks,
  ToolPolicy,
  ToolSource,
  ToolSourceKind,
  TraceContext,
} from './types.js';

// What plugins, built-in tools and bridged MCP servers accept and report.

export type { PluginGrants } from './capabilities/index.js';
export type {
  BuiltinToolsOptions,
  ControlFileAccess,
  ExecOptions,
  GrepOptions,
} from './sources/builtin/types.js';
export type {
  McpServerConfig,
  McpServerJail,
  McpServerState,
  McpServerStatus,
  StdioServerConfig,
} from './sources/mcp/types.js';
export type { PluginReport, PluginSettings, PluginStatus } from './sources/plugins/types.js';

// Limits and their defaults.

export {
  type CallLimits,
  DEFAULT_LIMITS,
  DEFAULT_SANDBOX_LIMITS,
  type OwnDeadline,
  type SandboxLimits,
} from './config/limits.js';

// The config file: its schema, loading and errors.

export type { IsolateSettings } from './config/isolates.js';
export {
  ConfigError,
  type ConfigIssue,
  type ConfigOutcome,
  configJsonSchema,
  loadConfigFile,
  parseConfig,
} from './config/load.js';
export { configSchema, type ToolhostConfig } from './config/schema.js';
export type { JailMode, Walls } from './jail/index.js';
export type { IsolateStats, PreludeStart } from './sandbox/types.js';
export type { ProcessMemory } from './util/memory.js';

// The pure planner, and the contracts it works on (declared in @toolhost/plugin-sdk).

export {
  type ApprovalSeverity,
  type AvailabilityContext,
  type AvailabilityExpression,
  type HiddenReason,
  type HiddenToolPlanEntry,
  isToolPlanContractError,
  type ToolApprovalRequirement,
  type ToolDescriptor,
  type ToolDiagnostic,
  type ToolPlan,
  ToolPlanContractError,
  type ToolPlanContractErrorCode,
  type ToolPlanEntry,
  type ToolResult,
} from '@toolhost/plugin-sdk';
export { evaluateAvailability } from './core/filter/availability.js';
export { buildToolPlan } from './core/filter/planner.js';

// Adapters: descriptors and results in the shapes of the Anthropic, OpenAI and MCP APIs.

export {
  type AnthropicContentBlock,
  type AnthropicDeferredTool,
  type AnthropicImageMediaType,
  type AnthropicInputSchema,
  type AnthropicTool,
  type AnthropicToolEntry,
  type AnthropicToolResultBlock,
  type AnthropicToolResultContent,
  type AnthropicToolSearchTool,
  type AnthropicToolUseBlock,
  toAnthropicTool,
  toAnthropicToolResult,
} from './core/dispatch/adapters/anthropic.js';
export { type McpTool, toMcpTool } from './core/dispatch/adapters/mcp.js';
export {
  type OpenAIFunctionCall,
  type OpenAIFunctionCallOutput,
  type OpenAIFunctionTool,
  type OpenAIResponseItem,
  type OpenAIResponsesDeferredTool,
  type OpenAIResponsesTool,
  type OpenAIResponsesToolEntry,
  type OpenAIToolCall,
  type OpenAIToolMessage,
  type OpenAIToolSearchCall,
  type OpenAIToolSearchOutput,
  type OpenAIToolSearchTool,
  toOpenAIFunctionCallOutput,
  toOpenAIResponsesTool,
  toOpenAITool,
  toOpenAIToolMessage,
} from './core/dispatch/adapters/openai.js';

// Serving a host's tools over MCP from code (what `toolhost serve` does).

export type { HttpAuthOptions } from './serve/auth/gate.js';
export type { ServeToken } from './serve/auth/tokens.js';
export type { DashboardEvent, DashboardOptions } from './serve/dashboard/index.js';
export { serveHttp } from './serve/http.js';
export type { McpHttpOptions, McpHttpServer } from './serve/http-options.js';
export type { McpSessionClose, McpSessionCloseReason } from './serve/http-sessions.js';
export type { McpPrompt, McpPromptArgument, McpPromptContext } from './serve/prompts.js';
export type { McpServeOptions } from './serve/server.js';
export type { WriteStall } from './serve/stalled-writes.js';
export { type McpStdioOptions, serveStdio } from './serve/stdio.js';
