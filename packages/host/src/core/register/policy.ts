import type { RegisteredTool, ToolPolicy, ToolSourceKind } from '../../types.js';
import { CODE_MODE_SOURCE_ID } from './code-mode.js';
import { SKILLS_SOURCE_ID } from './skills.js';

/** Built-ins with a switch of their own, which `builtins: false` leaves alone (and their group). */
const OWN_SWITCH: ReadonlySet<string> = new Set([CODE_MODE_SOURCE_ID, SKILLS_SOURCE_ID]);

/** What policy looks at: a tool's name and where it comes from. */
export interface PolicySubject {
  readonly name: string;
  readonly source: ToolSourceKind;
  readonly sourceId: string;
  /** Extra groups; honoured for built-ins only, so a plugin cannot join `group:fs`. */
  readonly groups?: readonly string[];
}

/** A registered tool as policy patterns see it. */
export function subjectOf(tool: RegisteredTool): PolicySubject {
  return {
    name: tool.descriptor.name,
    source: tool.source,
    sourceId: tool.sourceId,
    ...(tool.groups === undefined ? {} : { groups: tool.groups }),
  };
}

/** The verdict of {@link isAllowedTool}; a denial says which rule and how to change it. */
export type PolicyDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly rule: 'builtins-disabled' | 'deny' | 'allow';
      readonly message: string;
    };

/**
 * The groups a tool belongs to, lower-case, without the `group:` prefix:
 * built-ins: `builtin` plus their own (`fs`, `runtime`); plugins: `plugins`, `plugin:<id>`;
 * MCP: `mcp`, `mcp:<server>`; custom tools: `custom`; a channel session's tools: `channel`,
 * `channel:<id>`.
 */
export function groupsOf(subject: PolicySubject): string[] {
  const id = subject.sourceId.toLowerCase();
  switch (subject.source) {
    case 'builtin':
      return ['builtin', ...(subject.groups ?? []).map((g) => g.toLowerCase())];
    case 'plugin':
      return ['plugins', `plugin:${id}`];
    case 'mcp':
      return ['mcp', `mcp:${id}`];
    case 'custom':
      return ['custom'];
    case 'channel':
      return ['channel', `channel:${id}`];
  }
}

/**
 * Whether `text` matches `glob`, where `*` matches any run of characters and everything else is
 * literal, case-insensitively: tool names and groups have no path segments, so nothing of grep's
 * path globs (`**`, `?`, `{a,b}`) applies. Greedy matching with one backtrack point (the last `*`) keeps it
 * O(pattern × text) whatever the pattern: a regex of `.*` runs could backtrack exponentially on
 * a pattern such as `*a*a*a*a*b`.
 */
export function matchesStarGlob(glob: string, text: string): boolean {
  const p = glob.toLowerCase();
  const t = text.toLowerCase();
  let pi = 0;
  let ti = 0;
  let star = -1;
  let resume = 0;
  while (ti < t.length) {
    if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = ti;
    } else if (pi < p.length && p[pi] === t[ti]) {
      pi++;
      ti++;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

/** True when `pattern` (a name glob, or `group:<glob>`) matches the tool. */
export function matchesPattern(pattern: string, subject: PolicySubject): boolean {
  const trimmed = pattern.trim();
  if (trimmed.toLowerCase().startsWith('group:')) {
    const glob = trimmed.slice('group:'.length);
    return groupsOf(subject).some((group) => matchesStarGlob(glob, group));
  }
  return matchesStarGlob(trimmed, subject.name);
}

/**
 * The first gate. Rules, in order:
 * 1. `builtins: false` keeps every built-in out, but code mode's tools and the `skill` tool: they
 *    have their own switch (`tools.codeMode`, the skills folder) and reach nothing but the tools
 *    policy already admits.
 * 2. A tool matching any `deny` pattern is out — deny always wins over allow.
 * 3. When `allow` is present it is exhaustive for every source: a tool must match one of its
 *    patterns (a name glob or a group) to get in. An allow list that names only built-ins
 *    therefore admits no plugin tools; the registry warns about each source it shuts out, and
 *    `group:plugins`, `group:mcp`, `group:custom` or `*` let whole sources back in.
 */
export function isAllowedTool(subject: PolicySubject, policy: ToolPolicy): PolicyDecision {
  if (subject.source === 'builtin' && policy.builtins === false && !OWN_SWITCH.has(subject.sourceId)) {
    return {
      allowed: false,
      rule: 'builtins-disabled',
      message: `"${subject.name}" is a built-in tool and built-in tools are disabled (builtins: false)`,
    };
  }
  const deny = policy.deny?.find((pattern) => matchesPattern(pattern, subject));
  if (deny !== undefined) {
    return {
      allowed: false,
      rule: 'deny',
      message: `"${subject.name}" is denied by tools.deny pattern "${deny}"`,
    };
  }
  if (policy.allow !== undefined && !policy.allow.some((pattern) => matchesPattern(pattern, subject))) {
    const groups = groupsOf(subject);
    const hint =
      subject.source === 'builtin' && OWN_SWITCH.has(subject.sourceId)
        ? `group:${subject.sourceId}`
        : `group:${subject.source === 'plugin' || subject.source === 'mcp' || subject.source === 'channel' ? groups[1] : groups[0]}`;
    return {
      allowed: false,
      rule: 'allow',
      message: `"${subject.name}" is not matched by tools.allow [${policy.allow.join(', ')}]; add "${subject.name}" or "${hint}" to allow it`,
    };
  }
  return { allowed: true };
}
