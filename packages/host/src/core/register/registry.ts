import { type HiddenToolPlanEntry, TOOL_NAME_PATTERN } from '@toolhost/plugin-sdk';
import type {
  RegisteredTool,
  Registry,
  RegistryDiagnostic,
  ToolPolicy,
  ToolSource,
  ToolSourceKind,
} from '../../types.js';
import { checkAvailabilityExpression } from '../filter/availability.js';
import { formatOwner } from '../refs.js';
import { nameRefusal, overrideWarnings, refusedName } from './names.js';
import { isAllowedTool, matchesPattern, type PolicySubject, subjectOf } from './policy.js';

/** Merge order: a later source replaces an earlier one's tool of the same name. */
export const SOURCE_ORDER: readonly ToolSourceKind[] = ['builtin', 'plugin', 'mcp', 'custom', 'channel'];

/**
 * The executor a descriptor advertises is the one the tool really has: a source that left it out
 * (or disagrees) must not make the planner throw for every session.
 */
function withExecutorRef(tool: RegisteredTool): RegisteredTool {
  if (tool.descriptor.executor === tool.executor.ref) return tool;
  if (JSON.stringify(tool.descriptor.executor) === JSON.stringify(tool.executor.ref)) return tool;
  return { ...tool, descriptor: { ...tool.descriptor, executor: tool.executor.ref } };
}

/**
 * The built-in names `tool` may take: its source's own list (`channel.overrides`), or the ones the
 * operator let its plugin take (`plugins.<id>.overrides`).
 */
function consentOf(
  tool: RegisteredTool,
  source: ToolSource,
  policy: ToolPolicy,
): readonly string[] | undefined {
  if (source.overrides !== undefined) return source.overrides.names;
  const overrides = policy.overrides;
  if (tool.source !== 'plugin' || overrides === undefined || !Object.hasOwn(overrides, tool.sourceId))
    return undefined;
  return overrides[tool.sourceId];
}

function sourceLabel(source: ToolSource): string {
  return source.kind === 'builtin' || source.kind === 'custom'
    ? source.kind
    : `${source.kind} "${source.id}"`;
}

/** Why a later tool replaced an earlier one; a channel's replaces only in its sessions' Maps. */
function overrideMessage(name: string, winner: RegisteredTool, loser: RegisteredTool): string {
  const won = `"${name}" of ${formatOwner(winner.descriptor.owner)} replaces "${name}" of ${formatOwner(loser.descriptor.owner)}`;
  return winner.source === 'channel'
    ? `${won} in this channel's sessions (channel tools come last: built-in → plugin → mcp → custom → channel)`
    : `${won} (later sources win: built-in → plugin → mcp → custom)`;
}

/**
 * Builds the tool Map from every source: built-in → plugin → mcp → custom → channel (a channel
 * session's own Map, core/dispatch/channel.ts), a fresh Map each time.
 * A tool whose name breaks the one name rule (`TOOL_NAME_PATTERN`) never enters it (`invalid-name`).
 * Policy is the next gate: a denied tool stays out of the Map and is recorded as excluded with
 * `policy-denied`. Then the host's own names (names.ts): a plugin, MCP or channel tool named like
 * a built-in (without `plugins.<id>.overrides` naming it), or any tool named like a meta tool but
 * that meta tool, stays out with `override-refused`. Otherwise a later tool with a taken name
 * replaces the earlier one on purpose; the loser is recorded as excluded with `overridden` and a
 * warning names winner and loser.
 */
export function buildRegistry(sources: readonly ToolSource[], policy: ToolPolicy): Registry {
  const ordered = [...sources].sort((a, b) => SOURCE_ORDER.indexOf(a.kind) - SOURCE_ORDER.indexOf(b.kind));
  const tools = new Map<string, RegisteredTool>();
  const excluded: HiddenToolPlanEntry[] = [];
  const diagnostics: RegistryDiagnostic[] = [];
  const subjects: PolicySubject[] = [];
  // What the built-ins offer, admitted or not: a plugin does not get `read` because policy dropped it.
  const builtinNames = new Set(
    ordered.filter((s) => s.kind === 'builtin').flatMap((s) => s.tools.map((t) => t.descriptor.name)),
  );

  for (const source of ordered) {
    if (source.overrides !== undefined)
      diagnostics.push(...overrideWarnings(source.overrides.key, source.overrides.names, builtinNames));
    let admitted = 0;
    let shutOutByAllow = 0;
    for (const given of source.tools) {
      const tool = withExecutorRef(given);
      const name = tool.descriptor.name;
      // One name rule for every source: a model API rejects a whole request over one bad name.
      if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
        const message = `tool name ${JSON.stringify(name)} of ${formatOwner(tool.descriptor.owner)} is not a valid tool name (1-64 letters, digits, "_" or "-"); it stays hidden until renamed`;
        excluded.push({ descriptor: tool.descriptor, diagnostics: [{ reason: 'invalid-name', message }] });
        diagnostics.push({ level: 'warning', code: 'invalid-tool-name', toolName: String(name), message });
        continue;
      }
      const subject = subjectOf(tool);
      subjects.push(subject);
      const decision = isAllowedTool(subject, policy);
      if (!decision.allowed) {
        if (decision.rule === 'allow') shutOutByAllow += 1;
        excluded.push({
          descriptor: tool.descriptor,
          diagnostics: [{ reason: 'policy-denied', message: decision.message }],
        });
        diagnostics.push({ level: 'info', code: 'policy-denied', toolName: name, message: decision.message });
        continue;
      }
      const refusal = nameRefusal(tool, builtinNames, consentOf(tool, source, policy));
      if (refusal !== undefined) {
        const { entry, diagnostic } = refusedName(tool, refusal);
        excluded.push(entry);
        diagnostics.push(diagnostic);
        continue;
      }
      admitted += 1;
      for (const problem of checkAvailabilityExpression(tool.descriptor.availability)) {
        diagnostics.push({
          level: 'warning',
          code: 'unsupported-availability',
          toolName: name,
          message: `tool "${name}" of ${formatOwner(tool.descriptor.owner)}: ${problem.message}; it stays hidden until fixed`,
        });
      }
      const earlier = tools.get(name);
      if (earlier !== undefined) {
        const message = overrideMessage(name, tool, earlier);
        excluded.push({ descriptor: earlier.descriptor, diagnostics: [{ reason: 'overridden', message }] });
        diagnostics.push({ level: 'warning', code: 'tool-overridden', toolName: name, message });
      }
      const withheld = source.withheld?.get(name);
      if (withheld === undefined) tools.set(name, tool);
      else {
        tools.delete(name);
        excluded.push({ descriptor: tool.descriptor, diagnostics: [withheld] });
      }
    }
    // Not for a source with its own switch (code mode: most hosts never turn it on, and an allow
    // list that leaves it out is then exactly right; the plan still says why each is hidden).
    if (admitted === 0 && shutOutByAllow > 0 && source.optIn !== true) {
      diagnostics.push({
        level: 'warning',
        code: 'allow-matches-nothing',
        message: `tools.allow admits none of the ${shutOutByAllow} tool(s) of ${sourceLabel(source)}; add its group to tools.allow if that is not intended`,
      });
    }
    for (const entry of source.unavailable ?? []) excluded.push(entry);
  }

  for (const [id, names] of Object.entries(policy.overrides ?? {}))
    diagnostics.push(...overrideWarnings(`plugins.${id}.overrides`, names, builtinNames));

  for (const [list, code] of [
    [policy.allow, 'allow-matches-nothing'],
    [policy.deny, 'deny-matches-nothing'],
  ] as const) {
    for (const pattern of list ?? []) {
      if (!subjects.some((subject) => matchesPattern(pattern, subject))) {
        const key = code === 'allow-matches-nothing' ? 'tools.allow' : 'tools.deny';
        diagnostics.push({
          level: 'warning',
          code,
          message: `${key} pattern "${pattern}" matches no tool (a typo?)`,
        });
      }
    }
  }

  return { tools, excluded, diagnostics };
}
