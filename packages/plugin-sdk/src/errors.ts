import type { ToolPlanContractErrorCode } from './types.js';

/**
 * A broken planner contract: a host fault, never a model-facing result. Check `code` (not
 * `instanceof`) across bundles; `isToolPlanContractError` does that.
 */
export class ToolPlanContractError extends Error {
  override readonly name = 'ToolPlanContractError';
  readonly code: ToolPlanContractErrorCode;
  readonly toolName: string;

  constructor(options: { code: ToolPlanContractErrorCode; toolName: string; message: string }) {
    super(options.message);
    this.code = options.code;
    this.toolName = options.toolName;
  }
}

/** Two descriptors handed to the planner share one name. */
export function duplicateToolName(toolName: string, owners: readonly string[]): ToolPlanContractError {
  return new ToolPlanContractError({
    code: 'duplicate-tool-name',
    toolName,
    message: `Duplicate tool name "${toolName}" (declared by ${owners.join(' and ')}); tool names must be unique in a plan`,
  });
}

/** A descriptor passed availability but has nothing to run. */
export function missingExecutor(toolName: string): ToolPlanContractError {
  return new ToolPlanContractError({
    code: 'missing-executor',
    toolName,
    message: `Visible tool "${toolName}" has no executor ref: a visible tool must be callable`,
  });
}

const contractCodes: Record<ToolPlanContractErrorCode, 1> = {
  'duplicate-tool-name': 1,
  'missing-executor': 1,
};

/** True for a {@link ToolPlanContractError} from any copy of this package. */
export function isToolPlanContractError(value: unknown): value is ToolPlanContractError {
  if (typeof value !== 'object' || value === null) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(contractCodes, code);
}
