/**
 * How the `skill` tool sits in the one pipeline: a built-in of its own source (`skills`, group
 * `skills`) in the Map like every tool, so allow/deny, listings and plan diffs see it. Like code
 * mode's tools it has its own switch (the skills folder) and reaches nothing policy has not
 * admitted, so `builtins: false` leaves it in. What it runs is made per session
 * (core/dispatch/skills.ts).
 */
import type { RegisteredTool } from '../../types.js';

/** The name of the tool that loads or runs a skill. */
export const SKILL_TOOL_NAME = 'skill';

/** The source id (and policy group) of the `skill` tool. */
export const SKILLS_SOURCE_ID = 'skills';

/** True for the Map's entry of the `skill` tool (not a plugin's tool that took the name). */
export function isSkillTool(tool: Pick<RegisteredTool, 'source' | 'sourceId'>): boolean {
  return tool.source === 'builtin' && tool.sourceId === SKILLS_SOURCE_ID;
}
