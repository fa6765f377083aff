/**
 * How code mode's tools (`run_code`, `describe_tools`) sit in the one pipeline. They are built-in
 * tools of their own source (`code-mode`, group `code-mode`) in the Map like every tool, so
 * allow/deny, `toolhost list`, plan diffs and MCP `list_changed` see them. Their availability is
 * the context fact {@link CODE_MODE_CONTEXT_KEY}: the host sets it from `tools.codeMode`, and each
 * session from its own `codeMode` option, so they are visible exactly in code-mode sessions and
 * hidden elsewhere with a diagnostic naming the setting. What they run is made per session (a
 * script calls that session's tools), so a session swaps in its own executor once policy and
 * the plan have admitted the Map's entry.
 */
import type { RegisteredTool } from '../../types.js';

/** The source id of code mode's tools. */
export const CODE_MODE_SOURCE_ID = 'code-mode';

/** The names of code mode's tools. */
export const RUN_CODE = 'run_code';
export const DESCRIBE_TOOLS = 'describe_tools';

/** The availability context key that is `true` in a code-mode session (and host-wide when `tools.codeMode`). */
export const CODE_MODE_CONTEXT_KEY = 'tools.codeMode';

/** True for the Map's entries of code mode's own tools (not a plugin's tool that took the name). */
export function isCodeModeTool(tool: Pick<RegisteredTool, 'source' | 'sourceId'>): boolean {
  return tool.source === 'builtin' && tool.sourceId === CODE_MODE_SOURCE_ID;
}
