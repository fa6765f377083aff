import { COMMON_OPTIONS, parseCommand } from '../args.js';
import { planWarnings, warningLines } from '../findings.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { EXIT } from '../types.js';
import { listJson, planLines, shownPath } from '../view.js';

export async function list(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('list', argv, { ...COMMON_OPTIONS, json: { type: 'boolean' } });
  const project = await resolveProject(values);
  const host = await openHost(project, io);
  try {
    if (values.json === true)
      io.out.write(`${JSON.stringify(listJson(host.plan(), host.plugins), null, 2)}\n`);
    else {
      const style = styleFor(io.out);
      const warnings = planWarnings(host, shownPath(project.configFile));
      io.out.write(
        `${[...planLines(host.plan(), host.plugins, style), ...warningLines(warnings, style)].join('\n')}\n`,
      );
    }
  } finally {
    await host.close();
  }
  return EXIT.ok;
}
