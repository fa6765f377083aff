/**
 * Skills as the session sees them. A skill is a SKILL.md folder (skills/ reads and checks them):
 * a name, a description, instructions, and optionally a tool it dispatches to. The `skill` tool is
 * a built-in of its own source (`skills`, group `skills`) in the Map like every tool, so
 * allow/deny, availability, the active set, hooks and approvals apply to it. What it runs is made
 * per session (see {@link skillToolFor}, the entry's `bindToSession`): a skill that dispatches
 * calls its tool through the invoking session's `call`, so it can never reach a tool that session
 * could not call, and never runs under another session's context.
 */
import type { ToolDiagnostic, ToolResult } from '@toolhost/plugin-sdk';
import type { ExecutionContext, RegisteredTool, SessionBinding, ToolExecutor } from '../../types.js';
import { SKILL_TOOL_NAME } from '../register/skills.js';
import { errorResult } from '../wrap/results.js';
import type { CallOutcome } from '../wrap/wrapper.js';
import { promptLine } from './prompt-line.js';

export { isSkillTool, SKILL_TOOL_NAME, SKILLS_SOURCE_ID } from '../register/skills.js';

/** How a dispatching skill hands its arguments to its tool (only `raw` exists). */
export type SkillArgMode = 'raw';

/** What a dispatching skill's tool receives in `raw` mode. */
export interface SkillDispatchInput {
  /** The arguments as the user or the model wrote them, untouched ('' when none). */
  readonly command: string;
  /** The command the skill answers to (`/name`): its name. */
  readonly commandName: string;
  readonly skillName: string;
}

/** One skill of the `skills/` folder, as read and checked. */
export interface Skill {
  /** Its `name` (its folder name when the file could not be read that far). */
  readonly name: string;
  readonly description: string;
  /** The SKILL.md file, absolute. */
  readonly file: string;
  /** The Markdown after the front matter, trimmed. */
  readonly instructions: string;
  /** A person may invoke it (`session.invokeSkill`); `user-invocable`, default true. */
  readonly userInvocable: boolean;
  /** The model may invoke it (the `skill` tool); not `disable-model-invocation`. */
  readonly modelInvocable: boolean;
  /** The tool it runs instead of returning its instructions. */
  readonly dispatch?: { readonly tool: string; readonly argMode: SkillArgMode };
  /** Why it is hidden (a broken file, a missing requirement); empty when it can be used. */
  readonly diagnostics: readonly ToolDiagnostic[];
  /** What is odd but harmless (an unknown front-matter key), each naming the file and line. */
  readonly warnings: readonly string[];
}

/** Every skill of the host at one snapshot, by name, in name order. */
export type SkillCatalog = ReadonlyMap<string, Skill>;

/** Who asks for a skill: the model through the `skill` tool, or a person through the app. */
export type SkillCaller = 'model' | 'user';

/**
 * What running a skill needs of its session: its checks and calls, and the catalog of the
 * snapshot in force. `Outcome`: what the session's calls resolve with.
 */
export interface SkillSession<Outcome extends { readonly result: ToolResult } = CallOutcome>
  extends Pick<SessionBinding, 'check'> {
  skills(): SkillCatalog;
  /** A call through the session's full wrapper (policy, availability, active set, hooks). */
  call(name: string, input: unknown, options: { readonly signal?: AbortSignal }): Promise<Outcome>;
}

/** The most characters of a skill's description the model's prompt shows. */
export const SKILL_PROMPT_CHARS = 256;

/**
 * A skill as one line of text the model reads as the host's (the prompt section, the `skill`
 * tool's description): its name (checked, `a-z0-9-`) and its description made inert and capped
 * by {@link promptLine}, since the description is whatever its SKILL.md says.
 */
export function skillPromptLine(skill: Skill): string {
  return `- ${skill.name}: ${promptLine(skill.description, SKILL_PROMPT_CHARS)}`;
}

/** True when `skill` is usable and `caller` may invoke it. */
export function isInvocable(skill: Skill, caller: SkillCaller): boolean {
  return skill.diagnostics.length === 0 && (caller === 'model' ? skill.modelInvocable : skill.userInvocable);
}

function refused(message: string): CallOutcome {
  return { result: errorResult(message), status: 'blocked', durationMs: 0 };
}

function instructionsResult(skill: Skill, args: string): ToolResult {
  const given = args.trim() === '' ? '' : `\n\nArguments: ${args}`;
  return { content: [{ type: 'text', text: `# Skill: ${skill.name}\n\n${skill.instructions}${given}` }] };
}

/**
 * Runs skill `name` for `caller` in `session`: its instructions, or for a dispatching skill a
 * call of its tool through the session (every policy layer of that session applies). Refusals
 * (unknown, hidden, not for this caller, a tool the session cannot call) are `is_error` results
 * that say which. Never throws.
 */
export async function runSkill<Outcome extends { readonly result: ToolResult }>(
  session: SkillSession<Outcome>,
  name: string,
  args: string,
  caller: SkillCaller,
  options: { readonly signal?: AbortSignal } = {},
): Promise<Outcome | CallOutcome> {
  const catalog = session.skills();
  const skill = catalog.get(name);
  if (skill === undefined) {
    const known = [...catalog.values()].filter((s) => isInvocable(s, caller)).map((s) => s.name);
    return refused(`Unknown skill "${name}". Skills: ${known.length === 0 ? 'none' : known.join(', ')}`);
  }
  if (skill.diagnostics.length > 0) {
    const why = skill.diagnostics.map((d) => `${d.reason}: ${d.message}`).join('; ');
    return refused(`Skill "${name}" is not available: ${why}`);
  }
  if (caller === 'model' && !skill.modelInvocable) {
    return refused(`Skill "${name}" is for the user to invoke only (disable-model-invocation: true)`);
  }
  if (caller === 'user' && !skill.userInvocable) {
    return refused(`Skill "${name}" cannot be invoked by the user (user-invocable: false)`);
  }
  if (skill.dispatch === undefined) {
    return { result: instructionsResult(skill, args), status: 'ok', durationMs: 0 };
  }
  const tool = skill.dispatch.tool;
  const check = session.check(tool);
  if (!check.ok) {
    return refused(`Skill "${name}" runs tool "${tool}", which this session cannot call: ${check.message}`);
  }
  const input: SkillDispatchInput = { command: args, commandName: skill.name, skillName: skill.name };
  return session.call(tool, input, options);
}

/** What the `skill` tool accepts. */
export function parseSkillInput(
  input: unknown,
): { readonly ok: true; readonly name: string; readonly args: string } | { readonly ok: false } {
  if (typeof input !== 'object' || input === null) return { ok: false };
  const { name, arguments: args } = input as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || (args !== undefined && typeof args !== 'string')) return { ok: false };
  return { ok: true, name, args: args ?? '' };
}

/**
 * The `skill` tool of one session: the Map's entry (same descriptor, policy and limits) with an
 * executor bound to `session`, reading `catalog` (the one the entry was made from, so the one of
 * that Map's snapshot). The wrapper has validated the input against the descriptor's schema
 * before `run`.
 */
export function skillToolFor(
  tool: RegisteredTool,
  catalog: SkillCatalog,
  binding: SessionBinding,
): RegisteredTool {
  const session: SkillSession<{ readonly result: ToolResult }> = {
    skills: () => catalog,
    check: (name) => binding.check(name),
    call: (name, input, options) => binding.call(name, input, options),
  };
  const executor: ToolExecutor = {
    ref: tool.executor.ref,
    async run(input: unknown, ctx: ExecutionContext): Promise<ToolResult> {
      const parsed = parseSkillInput(input);
      if (!parsed.ok) return errorResult('skill needs { name: string, arguments?: string }');
      const outcome = await runSkill(session, parsed.name, parsed.args, 'model', { signal: ctx.signal });
      return outcome.result;
    },
  };
  return { ...tool, executor };
}

/**
 * The system prompt's part about skills: the skills the model may load in this session, by name
 * and description, one inert line each ({@link skillPromptLine}; instructions come through the
 * `skill` tool). A dispatching skill whose tool
 * the session cannot call is left out. Empty when there is nothing to list.
 */
export function skillsPromptSection(catalog: SkillCatalog, canCall: (tool: string) => boolean): string {
  if (catalog.size === 0 || !canCall(SKILL_TOOL_NAME)) return '';
  const lines: string[] = [];
  for (const skill of catalog.values()) {
    if (!isInvocable(skill, 'model')) continue;
    if (skill.dispatch !== undefined && !canCall(skill.dispatch.tool)) continue;
    lines.push(skillPromptLine(skill));
  }
  if (lines.length === 0) return '';
  return [
    '## Skills',
    `Skills hold instructions for particular tasks. When one fits the task, call the \`${SKILL_TOOL_NAME}\` tool with its name (and \`arguments\` if it takes any) before doing the task: it returns the skill's instructions, or runs it.`,
    ...lines,
  ].join('\n');
}
