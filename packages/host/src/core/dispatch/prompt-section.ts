/**
 * The system prompt a session writes: what the model cannot learn from the tool list itself.
 * Tools that exist but cannot be called now for a reason the user can fix (a missing environment
 * variable, credential or config value) or that will pass (an MCP server that is down), each with
 * its description's first line and why; then the skills the model may use (core/dispatch/skills.ts).
 */
import type { HiddenReason, ToolPlan } from '@toolhost/plugin-sdk';

/**
 * Why a hidden tool is worth telling the model about: something the user can supply, or a server
 * that is down for now. Other reasons (policy, a disabled or broken plugin, the session's context)
 * are the operator's or the developer's business, and naming those tools would only invite calls.
 */
const PROMPT_REASONS: ReadonlySet<HiddenReason> = new Set<HiddenReason>([
  'auth-missing',
  'config-missing',
  'env-missing',
  'mcp-unavailable',
]);

/**
 * The section for `plan`'s hidden tools that are active (`active` undefined: all are), followed by
 * `skills` (the skills' own section, possibly empty). The visible tools' names, descriptions and
 * schemas are not repeated: the API already hands them to the model. Empty when there is nothing
 * to say, so it can be appended to any system prompt.
 */
export function systemPromptSection(
  plan: ToolPlan,
  active: ReadonlySet<string> | undefined,
  skills: string,
): string {
  const lines: string[] = [];
  for (const { descriptor, diagnostics } of plan.hidden) {
    if (active !== undefined && !active.has(descriptor.name)) continue;
    if (diagnostics.length === 0 || !diagnostics.every((d) => PROMPT_REASONS.has(d.reason))) continue;
    const summary = (descriptor.description.split('\n')[0] ?? '').trim();
    const why = diagnostics.map((d) => d.message).join('; ');
    lines.push(`- ${descriptor.name}${summary === '' ? '' : ` (${summary})`}: ${why}`);
  }
  if (lines.length === 0) return skills;
  const hidden = [
    '## Tools not available now',
    'These tools exist but cannot be called yet. If the user asks for what one does, say what it needs:',
    ...lines,
  ].join('\n');
  return skills === '' ? hidden : `${hidden}\n\n${skills}`;
}
