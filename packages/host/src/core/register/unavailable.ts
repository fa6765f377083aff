import type { HiddenToolPlanEntry, ToolDescriptor, ToolDiagnostic, ToolOwnerRef } from '@toolhost/plugin-sdk';
import { placeholderDescriptor } from '../refs.js';

/** A source that can offer tools it cannot always list: a plugin, an MCP server. */
export type SourceOwner = Extract<ToolOwnerRef, { kind: 'plugin' } | { kind: 'mcp' }>;

/**
 * Hidden entries for the tools a source knows of but cannot offer now, each with `diagnostic`; a
 * single placeholder for the source when it knows none of them, so "where is my tool?" always has
 * an answer. Every source says it this one way.
 */
export function unavailableEntries(
  owner: SourceOwner,
  known: readonly ToolDescriptor[],
  diagnostic: ToolDiagnostic,
): HiddenToolPlanEntry[] {
  const diagnostics = [diagnostic];
  if (known.length === 0)
    return [{ descriptor: placeholderDescriptor(owner, diagnostic.message), diagnostics }];
  return known.map((descriptor) => ({ descriptor, diagnostics }));
}
