/**
 * Who may hold a name the host itself gives meaning to. A model calls `read` or `skill` for what
 * the host documents them to do, so a tool from a source the host does not trust with that (a
 * plugin, a bridged MCP server, a channel) must not receive those calls by merely taking the name:
 * - A built-in's name stays the built-in's unless the operator names the override
 *   (`plugins.<id>.overrides`, a channel session's `channel.overrides`). It counts as a built-in's
 *   name whenever the built-ins offer it, admitted by policy or not, so an edit of `tools.deny`
 *   never hands `read` to a plugin in passing. Custom tools (the embedder's own code, trusted like
 *   the built-ins) still replace built-ins, with the registry's `tool-overridden` warning.
 * - A meta tool's name (the tools through which the session reaches the others) belongs to that
 *   meta tool alone: nothing, config or code, may take it. A code-mode session whose `run_code`
 *   were a plugin's would have no tools at all.
 * - A name of the bridged servers' namespace (`mcp__<server>__<tool>`) is the bridge's: a plugin's
 *   or channel's tool there would pass policy meant for a server and be called as its tool.
 * The loser is hidden with `override-refused`, saying what would allow it (or that nothing would).
 */
import type { HiddenToolPlanEntry } from '@toolhost/plugin-sdk';
import type { RegisteredTool, RegistryDiagnostic } from '../../types.js';
import { formatOwner } from '../refs.js';
import { CODE_MODE_SOURCE_ID, DESCRIBE_TOOLS, RUN_CODE } from './code-mode.js';
import { SKILL_TOOL_NAME, SKILLS_SOURCE_ID } from './skills.js';

/** The name of the search tool a session adds when some tool is deferred. */
export const TOOL_SEARCH_NAME = 'tool_search';

/** The name of the call-through a session offers over MCP beside its search (see core/dispatch/deferral.ts). */
export const CALL_TOOL_NAME = 'call_tool';

/**
 * Every meta tool's name, with the built-in source that alone may hold it in the Map; `undefined`
 * for the ones a session adds itself (never in the Map). `call_tool` is deferral's call-through
 * over MCP; Anthropic's server-side searches are named in the tool list.
 */
const META_TOOLS: ReadonlyMap<string, string | undefined> = new Map([
  [SKILL_TOOL_NAME, SKILLS_SOURCE_ID],
  [RUN_CODE, CODE_MODE_SOURCE_ID],
  [DESCRIBE_TOOLS, CODE_MODE_SOURCE_ID],
  [TOOL_SEARCH_NAME, undefined],
  ['tool_search_tool_bm25', undefined],
  ['tool_search_tool_regex', undefined],
  [CALL_TOOL_NAME, undefined],
]);

/** True for the name of a meta tool. */
export function isMetaToolName(name: string): boolean {
  return META_TOOLS.has(name);
}

/** How the bridge names a bridged server's tools: `mcp__<server>__<tool>`. */
const BRIDGED_PREFIX = 'mcp__';

/**
 * Whether `name` is in the bridged servers' namespace, in any case: a plugin's or channel's
 * `mcp__github__create_issue` would pass `tools.allow: ["mcp__github__*"]`, meant for that
 * server, and be called as its tool when the server is down or lacks one of that name.
 */
function isBridgedName(name: string): boolean {
  return name.slice(0, BRIDGED_PREFIX.length).toLowerCase() === BRIDGED_PREFIX;
}

/** Sources that take a built-in's name only by the operator's consent. */
const NEEDS_CONSENT: ReadonlySet<RegisteredTool['source']> = new Set(['plugin', 'mcp', 'channel']);

/** Where the operator would consent for `tool`'s source, in words. */
function consentHint(tool: RegisteredTool, name: string): string {
  switch (tool.source) {
    case 'plugin':
      return `to let plugin "${tool.sourceId}" replace the built-in, add "${name}" to plugins.${tool.sourceId}.overrides`;
    case 'channel':
      return `to let channel "${tool.sourceId}" replace the built-in, add "${name}" to the session's channel.overrides`;
    default:
      return `a tool of ${formatOwner(tool.descriptor.owner)} cannot replace a built-in; rename it`;
  }
}

/**
 * Why `tool` may not have its name, or `undefined` when it may. `builtinNames`: the names the
 * built-in sources offer; `consented`: the built-in names the operator let this tool's source take.
 */
export function nameRefusal(
  tool: RegisteredTool,
  builtinNames: ReadonlySet<string>,
  consented: readonly string[] | undefined,
): string | undefined {
  const name = tool.descriptor.name;
  const what = `tool "${name}" of ${formatOwner(tool.descriptor.owner)} is hidden`;
  if (META_TOOLS.has(name)) {
    const owner = META_TOOLS.get(name);
    if (owner !== undefined && tool.source === 'builtin' && tool.sourceId === owner) return undefined;
    return `${what}: "${name}" is the name of a toolhost meta tool, which no other tool may take whatever the config; rename the tool`;
  }
  if ((tool.source === 'plugin' || tool.source === 'channel') && isBridgedName(name)) {
    return `${what}: "${name}" is in the namespace of bridged MCP servers' tools (${BRIDGED_PREFIX}<server>__<tool>), which only the bridge gives and config speaks of (tools.allow, approvals); rename the tool`;
  }
  if (!builtinNames.has(name) || !NEEDS_CONSENT.has(tool.source) || consented?.includes(name) === true)
    return undefined;
  return `${what}: "${name}" is the name of a built-in tool, which keeps it; ${consentHint(tool, name)}`;
}

/** The hidden entry and the warning for a refused name. */
export function refusedName(
  tool: RegisteredTool,
  message: string,
): { entry: HiddenToolPlanEntry; diagnostic: RegistryDiagnostic } {
  return {
    entry: { descriptor: tool.descriptor, diagnostics: [{ reason: 'override-refused', message }] },
    diagnostic: { level: 'warning', code: 'override-refused', toolName: tool.descriptor.name, message },
  };
}

/**
 * Warnings about consent that cannot do anything: a name of a meta tool (which nothing may take),
 * or one no built-in has (a typo?). `key` is where the list is set, e.g. `plugins.files.overrides`.
 */
export function overrideWarnings(
  key: string,
  names: readonly string[],
  builtinNames: ReadonlySet<string>,
): RegistryDiagnostic[] {
  const warnings: RegistryDiagnostic[] = [];
  for (const name of names) {
    if (META_TOOLS.has(name)) {
      warnings.push({
        level: 'warning',
        code: 'override-refused',
        toolName: name,
        message: `${key} names "${name}", a meta tool, which no other tool may take; remove it`,
      });
    } else if (!builtinNames.has(name)) {
      warnings.push({
        level: 'warning',
        code: 'override-matches-nothing',
        toolName: name,
        message: `${key} names "${name}", which no built-in tool of this host has (a typo?)`,
      });
    }
  }
  return warnings;
}
