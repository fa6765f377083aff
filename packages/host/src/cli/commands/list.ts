import { parseCommand } from '../args.js';
import { planWarnings, warningLines } from '../findings.js';
import { FLAGS } from '../flags.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { listedSkills, skillLines } from '../skills-view.js';
import { toolJails } from '../tool-jails.js';
import { EXIT } from '../types.js';
import { deferredOf, listJson, planLines, shownPath } from '../view.js';

export async function list(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('list', argv, FLAGS.list.options);
  const project = await resolveProject(values);
  const host = await openHost(project, io);
  try {
    const warnings = planWarnings(host, shownPath(project.configFile));
    if (values.json === true) {
      // stdout is the JSON alone, for scripts; the warnings go where a person still sees them.
      const json = {
        ...listJson(host.plan(), host.plugins, await host.isolates(), deferredOf(host)),
        skills: listedSkills(host.skills()),
        walls: host.walls,
        // exec's and each MCP server's: jailed and with what, or why not.
        toolWalls: toolJails(host),
      };
      io.out.write(`${JSON.stringify(json, null, 2)}\n`);
      const [, ...lines] = warningLines(warnings, styleFor(io.err)); // without its leading blank line
      if (lines.length > 0) io.err.write(`${lines.join('\n')}\n`);
    } else {
      const style = styleFor(io.out);
      io.out.write(
        `${[
          ...planLines(host.plan(), host.plugins, style, deferredOf(host)),
          ...skillLines(host.skills(), style),
          ...warningLines(warnings, style),
        ].join('\n')}\n`,
      );
    }
  } finally {
    await host.close();
  }
  return EXIT.ok;
}
