export { allOf, always, anyOf, auth, config, context, env, pluginEnabled } from './availability.js';
export type { StructuredOutput, ToolDefinition, ToolInputSchema, ToolReturn } from './define.js';
export { defineTool, describeTool, normalizeToolReturn, TOOL_NAME_PATTERN, toJsonSchema } from './define.js';
export {
  duplicateToolName,
  isToolPlanContractError,
  missingExecutor,
  ToolPlanContractError,
} from './errors.js';
export type {
  AudioContent,
  AvailabilityContext,
  AvailabilityExpression,
  AvailabilitySignal,
  CallSignal,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResource,
  HiddenReason,
  HiddenToolPlanEntry,
  ImageContent,
  JsonSchema,
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
