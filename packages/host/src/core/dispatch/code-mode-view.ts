/**
 * Code mode as a session sees it. Code mode's tools are entries of the Map like any (their source
 * is code-mode/, their per-session copies come through `RegisteredTool.bindToSession`); what the
 * session adds is its switch: the availability fact that makes them visible exactly in a
 * code-mode session, and the split of the plan into what the model is handed (`run_code`,
 * `describe_tools`) and what a script may call (everything else that is active and visible).
 */
import type { ToolDescriptor, ToolPlan } from '@toolhost/plugin-sdk';
import type { RegisteredTool } from '../../types.js';
import { CODE_MODE_CONTEXT_KEY, isCodeModeTool } from '../register/code-mode.js';
import type { HostSnapshot } from './session-types.js';

/** Whether a session is in code mode: its own option, else the host's `tools.codeMode`. */
export function inCodeMode(option: boolean | undefined, snapshot: HostSnapshot): boolean {
  return option ?? snapshot.codeMode?.enabled ?? false;
}

/** The availability facts a session plans with: the host's, its own context, and its code-mode switch. */
export function sessionAvailability(
  snapshot: HostSnapshot,
  context: Readonly<Record<string, unknown>>,
  codeMode: boolean,
): HostSnapshot['availability'] {
  return {
    ...snapshot.availability,
    context: { ...snapshot.availability.context, ...context, [CODE_MODE_CONTEXT_KEY]: codeMode },
  };
}

/** True when `descriptor` is the Map's entry of one of code mode's own tools. */
function isCodeModeEntry(tools: ReadonlyMap<string, RegisteredTool>, descriptor: ToolDescriptor): boolean {
  const tool = tools.get(descriptor.name);
  return tool !== undefined && tool.descriptor === descriptor && isCodeModeTool(tool);
}

/** Code mode's tools as the plan admits them (policy may have denied one or both), in plan order. */
export function codeModeDescriptors(
  plan: ToolPlan,
  tools: ReadonlyMap<string, RegisteredTool>,
): ToolDescriptor[] {
  return plan.visible
    .filter((entry) => isCodeModeEntry(tools, entry.descriptor))
    .map((entry) => entry.descriptor);
}

/** Active ∩ visible, in plan order, without code mode's own tools. */
export function callableDescriptorsOf(
  plan: ToolPlan,
  tools: ReadonlyMap<string, RegisteredTool>,
  active: ReadonlySet<string> | undefined,
): ToolDescriptor[] {
  return plan.visible
    .filter(
      (entry) =>
        (active === undefined || active.has(entry.descriptor.name)) &&
        !isCodeModeEntry(tools, entry.descriptor),
    )
    .map((entry) => entry.descriptor);
}
