import {
  type AvailabilityContext,
  duplicateToolName,
  type HiddenToolPlanEntry,
  missingExecutor,
  type ToolDescriptor,
  type ToolPlan,
  type ToolPlanEntry,
} from '@toolhost/plugin-sdk';
import { byCodeUnit } from '../../util/compare.js';
import { formatOwner } from '../refs.js';
import { evaluateAvailability } from './availability.js';

/** Plan order: `sortKey ?? name`, then `name`, compared by code unit so the order never depends on locale. */
export function compareDescriptors(a: ToolDescriptor, b: ToolDescriptor): number {
  return byCodeUnit(a.sortKey ?? a.name, b.sortKey ?? b.name) || byCodeUnit(a.name, b.name);
}

/**
 * Splits descriptors into visible and hidden. Pure: descriptors and a context in, a plan out;
 * no I/O, no clock, deterministic order.
 *
 * @throws ToolPlanContractError `duplicate-tool-name` when two descriptors share a name;
 *   `missing-executor` when a descriptor that would be visible has no executor ref.
 */
export function buildToolPlan(
  descriptors: readonly ToolDescriptor[],
  context: AvailabilityContext,
): ToolPlan {
  const sorted = [...descriptors].sort(compareDescriptors);
  const seen = new Map<string, ToolDescriptor>();
  for (const descriptor of sorted) {
    const earlier = seen.get(descriptor.name);
    if (earlier !== undefined) {
      throw duplicateToolName(descriptor.name, [formatOwner(earlier.owner), formatOwner(descriptor.owner)]);
    }
    seen.set(descriptor.name, descriptor);
  }

  const visible: ToolPlanEntry[] = [];
  const hidden: HiddenToolPlanEntry[] = [];
  for (const descriptor of sorted) {
    const diagnostics = evaluateAvailability(descriptor.availability, context);
    if (diagnostics.length > 0) {
      hidden.push({ descriptor, diagnostics });
      continue;
    }
    if (descriptor.executor === undefined) throw missingExecutor(descriptor.name);
    visible.push({ descriptor, executor: descriptor.executor });
  }
  return { visible, hidden };
}
