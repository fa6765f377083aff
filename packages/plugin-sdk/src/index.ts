export { allOf, always, anyOf, auth, config, context, env, pluginEnabled } from './availability.js';
export type { StructuredOutput, ToolDefinition, ToolInputSchema, ToolReturn } from './define.js';
export {
  defineTool,
  describeTool,
  descriptionTooLong,
  MAX_DESCRIPTION_CHARS,
  MAX_TOOLS_PER_PLUGIN,
  TOOL_NAME_PATTERN,
  toJsonSchema,
  tooManyTools,
} from './define.js';
export {
  duplicateToolName,
  isToolPlanContractError,
  missingExecutor,
  ToolPlanContractError,
} from './errors.js';
export type {
  PluginAfterResult,
  PluginAfterToolCallEvent,
  PluginBeforeResult,
  PluginBeforeToolCallEvent,
  PluginConfigOf,
  PluginDefinition,
  PluginHookContext,
  PluginHooks,
} from './plugin.js';
export { definePlugin, PLUGIN_BRAND } from './plugin.js';
export { normalizeToolReturn } from './results.js';
export type {
  AudioContent,
  AvailabilityContext,
  AvailabilityExpression,
  AvailabilitySignal,
  CallSignal,
  CapabilityFailure,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResource,
  FetchOptions,
  FetchResponse,
  FileStat,
  HiddenReason,
  HiddenToolPlanEntry,
  ImageContent,
  JsonSchema,
  PluginFs,
  PluginPermissions,
  ResourceContents,
  ResourceLink,
  TextContent,
  ToolAnnotations,
  ToolContext,
  ToolDescriptor,
  ToolDiagnostic,
  ToolExecutorRef,
  ToolLogger,
  ToolOwnerRef,
  ToolPlan,
  ToolPlanContractErrorCode,
  ToolPlanEntry,
  ToolResult,
} from './types.js';
