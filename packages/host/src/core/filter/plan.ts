import type { AvailabilityContext, ToolPlan } from '@toolhost/plugin-sdk';
import type { Registry } from '../../types.js';
import { buildToolPlan, compareDescriptors } from './planner.js';

/**
 * The plan of a registry: the planner's split of the Map's descriptors, with the tools the
 * registry kept out (policy-denied, overridden, failed to load) added to `hidden`, so every tool
 * anyone declared is accounted for.
 */
export function planRegistry(registry: Registry, context: AvailabilityContext): ToolPlan {
  const plan = buildToolPlan(
    [...registry.tools.values()].map((tool) => tool.descriptor),
    context,
  );
  if (registry.excluded.length === 0) return plan;
  const hidden = [...plan.hidden, ...registry.excluded].sort((a, b) =>
    compareDescriptors(a.descriptor, b.descriptor),
  );
  return { visible: plan.visible, hidden };
}
