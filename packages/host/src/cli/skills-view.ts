/** Skills as `toolhost list` (and `--json`) shows them, beside the plan's tools. */
import type { Skill } from '../core/dispatch/skills.js';
import type { Style } from './io.js';
import type { ListedSkill } from './types.js';
import { shownPath, table } from './view.js';

/** `list --json`'s `skills`. */
export function listedSkills(skills: readonly Skill[]): ListedSkill[] {
  return skills.map((skill) => ({
    name: skill.name,
    description: skill.description,
    file: shownPath(skill.file),
    status: skill.diagnostics.length === 0 ? 'visible' : 'hidden',
    userInvocable: skill.userInvocable,
    modelInvocable: skill.modelInvocable,
    ...(skill.dispatch === undefined ? {} : { tool: skill.dispatch.tool }),
    diagnostics: skill.diagnostics.map(({ reason, message }) => ({ reason, message })),
    warnings: [...skill.warnings],
  }));
}

/** Who may invoke a skill, and what it runs. */
function usage(skill: Skill): string {
  const who =
    skill.modelInvocable && skill.userInvocable
      ? 'model, user'
      : skill.modelInvocable
        ? 'model'
        : skill.userInvocable
          ? 'user'
          : 'nobody';
  return skill.dispatch === undefined ? who : `${who} → ${skill.dispatch.tool}`;
}

/** The skills table: usable ones with who may invoke them, hidden ones with every reason; then warnings. */
export function skillLines(skills: readonly Skill[], style: Style): string[] {
  if (skills.length === 0) return [];
  const lines = ['', style.bold(`Skills (${skills.length})`)];
  lines.push(
    ...table(
      skills.map((skill) =>
        skill.diagnostics.length === 0
          ? [style.green(skill.name), usage(skill), skill.description.split('\n')[0] ?? '']
          : [
              style.yellow(skill.name),
              style.yellow('hidden'),
              skill.diagnostics.map((d) => `${d.reason}: ${d.message}`).join('; '),
            ],
      ),
    ),
  );
  for (const warning of skills.flatMap((skill) => skill.warnings))
    lines.push(`  ${style.yellow('warning')} ${warning}`);
  return lines;
}
