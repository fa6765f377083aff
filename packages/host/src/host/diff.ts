import type { ToolDiagnostic, ToolPlan } from '@toolhost/plugin-sdk';
import type { HostChange } from './types.js';

interface Indexed {
  readonly visible: boolean;
  readonly json: string;
  readonly diagnostics: readonly ToolDiagnostic[];
}

/** One entry per tool name of a plan: the visible entry when there is one. */
function planIndex(plan: ToolPlan): Map<string, Indexed> {
  const index = new Map<string, Indexed>();
  for (const entry of plan.hidden) {
    if (index.has(entry.descriptor.name)) continue;
    index.set(entry.descriptor.name, {
      visible: false,
      json: JSON.stringify(entry.descriptor),
      diagnostics: entry.diagnostics,
    });
  }
  for (const entry of plan.visible) {
    index.set(entry.descriptor.name, {
      visible: true,
      json: JSON.stringify(entry.descriptor),
      diagnostics: [],
    });
  }
  return index;
}

/** What changed between two plans, by tool name. */
export function diffPlans(
  before: ToolPlan,
  after: ToolPlan,
): Pick<HostChange, 'added' | 'removed' | 'changed' | 'newlyHidden' | 'newlyVisible'> {
  const old = planIndex(before);
  const now = planIndex(after);
  return {
    added: [...now.keys()].filter((name) => !old.has(name)),
    removed: [...old.keys()].filter((name) => !now.has(name)),
    changed: [...now]
      .filter(([name, e]) => old.has(name) && old.get(name)?.json !== e.json)
      .map(([name]) => name),
    newlyHidden: [...now]
      .filter(([name, e]) => !e.visible && old.get(name)?.visible === true)
      .map(([name, e]) => ({ name, diagnostics: e.diagnostics })),
    newlyVisible: [...now]
      .filter(([name, e]) => e.visible && old.get(name)?.visible !== true)
      .map(([name]) => name),
  };
}
