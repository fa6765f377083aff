import type { HiddenToolPlanEntry, ToolDescriptor, ToolDiagnostic, ToolOwnerRef } from '@toolhost/plugin-sdk';

/** A source that can offer tools it cannot always list: a plugin, an MCP server. */
export type SourceOwner = Extract<ToolOwnerRef, { kind: 'plugin' } | { kind: 'mcp' }>;

/**
 * The hidden entry that stands for a whole source whose tools are not known (a plugin that never
 * loaded, a server that never connected), named `plugin:<id>` or `mcp:<id>`: never a valid tool
 * name, so it can only be shown, never called.
 */
export function sourcePlaceholder(owner: SourceOwner, description: string): ToolDescriptor {
  const id = owner.kind === 'plugin' ? owner.pluginId : owner.serverId;
  return { name: `${owner.kind}:${id}`, description, inputSchema: { type: 'object' }, owner };
}

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
  if (known.length === 0) return [{ descriptor: sourcePlaceholder(owner, diagnostic.message), diagnostics }];
  return known.map((descriptor) => ({ descriptor, diagnostics }));
}
