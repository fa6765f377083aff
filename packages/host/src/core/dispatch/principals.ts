/**
 * Principals: who calls (a project token, an OAuth subject or client, a claim such as a group)
 * mapped to a policy overlay that narrows what that caller may see and call, laid over the
 * host's own policy at list time and at call time.
 *
 * An overlay only narrows, never widens: the host's `tools.allow`/`tools.deny` decide what exists
 * at all; an overlay's `allow` then keeps only what it matches (for that caller), its `deny` takes
 * more away (deny wins), its `approve` asks a person before more calls, its `defer` shows more
 * tools only through a search. `mcpClients` replaces `approvals.mcpClients` for that caller: which
 * of its MCP clients may answer approvals.
 *
 * Config `principals` is read in order: the first entry whose `match` fits the caller gives its
 * overlay (an entry matching `{}` fits every caller: put it last as the default); a caller no
 * entry fits gets none, only the host's policy. Pure: no I/O, no clock.
 */
import type { Principal, ToolPolicy } from '../../types.js';
import {
  isAllowedTool,
  matchesStarGlob,
  type PolicyDecision,
  type PolicySubject,
} from '../register/policy.js';
import type { ApprovalRule, ApprovalSettings } from './approvals.js';

/** Which callers an entry is for; every field given must fit (none given: every caller). */
export interface PrincipalMatch {
  /** A project token's name (`toolhost token --rotate NAME`), `*` wildcards. */
  readonly token?: string;
  /** The OAuth subject (`sub`), `*` wildcards. */
  readonly subject?: string;
  /** The OAuth client id (`client_id`, `azp`), `*` wildcards. */
  readonly client?: string;
  /** A claim of the access token: equal to `equals`, or (an array claim) holding it. */
  readonly claim?: { readonly name: string; readonly equals: string };
}

/** What an entry lays over the host's policy for the callers it matches. */
export interface PolicyOverlay {
  /** `principals.<name>`: named in refusals, approvals and the audit trail. */
  readonly name: string;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly approve?: readonly ApprovalRule[];
  readonly defer?: readonly string[];
  readonly mcpClients?: readonly string[];
}

/** One `principals` entry, resolved. */
export interface PrincipalRule {
  readonly match: PrincipalMatch;
  readonly overlay: PolicyOverlay;
}

function claimHolds(claims: Principal['claims'], claim: NonNullable<PrincipalMatch['claim']>): boolean {
  const value = claims?.[claim.name];
  if (Array.isArray(value)) return value.some((v) => v === claim.equals);
  return value === claim.equals;
}

/** Whether `match` fits `principal`. */
export function matchesPrincipal(match: PrincipalMatch, principal: Principal): boolean {
  if (
    match.token !== undefined &&
    !(principal.tokenName !== undefined && matchesStarGlob(match.token, principal.tokenName))
  )
    return false;
  if (
    match.subject !== undefined &&
    !(principal.subject !== undefined && matchesStarGlob(match.subject, principal.subject))
  )
    return false;
  if (
    match.client !== undefined &&
    !(principal.clientId !== undefined && matchesStarGlob(match.client, principal.clientId))
  )
    return false;
  if (match.claim !== undefined && !claimHolds(principal.claims, match.claim)) return false;
  return true;
}

/** The overlay of the first rule that fits `principal`, if any. */
export function overlayFor(
  principal: Principal | undefined,
  rules: readonly PrincipalRule[] | undefined,
): PolicyOverlay | undefined {
  if (principal === undefined || rules === undefined) return undefined;
  return rules.find((rule) => matchesPrincipal(rule.match, principal))?.overlay;
}

/**
 * Whether the overlay lets its caller see and call `subject`; a refusal names the key. The
 * host's own policy has already admitted the tool (it is in the Map).
 */
export function overlayDecision(
  overlay: PolicyOverlay,
  subject: PolicySubject,
  principal: Principal,
): PolicyDecision {
  if (overlay.allow === undefined && overlay.deny === undefined) return { allowed: true };
  const policy: ToolPolicy = {
    ...(overlay.allow === undefined ? {} : { allow: overlay.allow }),
    ...(overlay.deny === undefined ? {} : { deny: overlay.deny }),
  };
  const decision = isAllowedTool(subject, policy);
  if (decision.allowed) return decision;
  const key = `principals.${overlay.name}.tools.${decision.rule === 'deny' ? 'deny' : 'allow'}`;
  return {
    allowed: false,
    rule: decision.rule,
    message: `"${subject.name}" is not for ${principal.id}: ${
      decision.rule === 'deny'
        ? `${key} denies it`
        : `${key} [${(overlay.allow ?? []).join(', ')}] does not match it`
    }`,
  };
}

/** The host's policy with the overlay's deferrals added. */
export function overlaidPolicy(policy: ToolPolicy, overlay: PolicyOverlay): ToolPolicy {
  if (overlay.defer === undefined || overlay.defer.length === 0) return policy;
  return { ...policy, defer: [...(policy.defer ?? []), ...overlay.defer] };
}

/** The host's approval settings with the overlay's rules first and its `mcpClients`, if it has them. */
export function overlaidApprovals(
  settings: ApprovalSettings | undefined,
  overlay: PolicyOverlay,
): ApprovalSettings | undefined {
  if (overlay.approve === undefined && overlay.mcpClients === undefined) return settings;
  const base = settings ?? { rules: [], timeoutMs: 60_000, mcpClients: [] };
  return {
    ...base,
    rules: [...(overlay.approve ?? []), ...base.rules],
    mcpClients: overlay.mcpClients ?? base.mcpClients,
  };
}
