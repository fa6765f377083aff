/**
 * A principal's view of its host: the overlay of the first fitting `principals` entry laid over
 * each snapshot (policy, approvals) and over the session's plan (what it keeps out is hidden as
 * `policy-denied`). Pure but for the cache of one view per host snapshot.
 */
import type { HiddenToolPlanEntry, ToolPlan } from '@toolhost/plugin-sdk';
import type { Principal } from '../../types.js';
import { subjectOf } from '../register/policy.js';
import { overlaidApprovals, overlaidPolicy, overlayDecision, overlayFor } from './principals.js';
import type { HostSnapshot } from './session-types.js';

/**
 * A principal's view of the host's snapshots: the overlay that fits it, the host's policy with its
 * deferrals and the approval settings with its rules, worked out once per host snapshot (so a
 * config reload that changes `principals` applies from the next call).
 */
export function principalSnapshots(
  hostSnapshot: () => HostSnapshot,
  principal: Principal,
): () => HostSnapshot {
  let from: HostSnapshot | undefined;
  let view: HostSnapshot | undefined;
  return () => {
    const current = hostSnapshot();
    if (current !== from || view === undefined) {
      const overlay = overlayFor(principal, current.principals);
      view =
        overlay === undefined
          ? current
          : {
              ...current,
              policy: overlaidPolicy(current.policy, overlay),
              ...(overlaidApprovals(current.approvals, overlay) === undefined
                ? {}
                : { approvals: overlaidApprovals(current.approvals, overlay) }),
              overlay: { principal, overlay },
            };
      from = current;
    }
    return view;
  };
}

/** The plan with what the snapshot's overlay keeps from its principal moved to hidden, as `policy-denied`. */
export function narrowed(plan: ToolPlan, snapshot: HostSnapshot): ToolPlan {
  const { overlay, principal } = snapshot.overlay as NonNullable<HostSnapshot['overlay']>;
  if (overlay.allow === undefined && overlay.deny === undefined) return plan;
  const tools = snapshot.registry.tools;
  const visible: ToolPlan['visible'][number][] = [];
  const hidden: HiddenToolPlanEntry[] = [...plan.hidden];
  for (const entry of plan.visible) {
    const tool = tools.get(entry.descriptor.name);
    const decision = tool === undefined ? undefined : overlayDecision(overlay, subjectOf(tool), principal);
    if (decision === undefined || decision.allowed) visible.push(entry);
    else {
      hidden.push({
        descriptor: entry.descriptor,
        diagnostics: [{ reason: 'policy-denied', message: decision.message }],
      });
    }
  }
  return { ...plan, visible, hidden };
}
