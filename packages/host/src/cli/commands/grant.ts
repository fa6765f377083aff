import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parseCommand, UsageError } from '../args.js';
import { addAt, grantFindings, render } from '../findings.js';
import { FLAGS } from '../flags.js';
import { type Io, styleFor } from '../io.js';
import { addToJson, lineDiff } from '../json-edit.js';
import { openHost, resolveProject } from '../project.js';
import { refusalGrants } from '../tool-jails.js';
import { EXIT } from '../types.js';
import { shownPath } from '../view.js';

/** The config file's text, or undefined when there is none; a file that is not JSON is refused. */
async function readConfigText(file: string, name: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  } catch (error) {
    throw new Error(
      `${name} does not parse (${(error as Error).message}); correct it first: grant only edits a config it can read`,
    );
  }
  return text;
}

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

/**
 * `toolhost grant PLUGIN [--yes]`: writes into the config the grants `doctor` finds missing for
 * PLUGIN, after showing the diff. On a terminal it asks; elsewhere it needs `--yes`.
 * `toolhost grant exec` and `toolhost grant SERVER` write what that tool's jail refused lately
 * (`.toolhost/jail-refusals.json`), each at the key that grants it.
 */
export async function grant(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand('grant', argv, FLAGS.grant.options, FLAGS.grant.positionals);
  const [id = ''] = positionals;
  const project = await resolveProject(values);
  const name = shownPath(project.configFile);
  const before = await readConfigText(project.configFile, name);
  const host = await openHost(project, io);
  const suggestion: Record<string, unknown> = {};
  let findings: ReturnType<typeof grantFindings> = [];
  let tool: string | undefined;
  try {
    const report = host.plugins.find((p) => p.id === id);
    if (report === undefined) {
      tool =
        id === 'exec' ? 'exec' : Object.hasOwn(host.config.mcpServers ?? {}, id) ? `mcp:${id}` : undefined;
      if (tool === undefined) {
        const ids = host.plugins.map((p) => p.id);
        const servers = Object.keys(host.config.mcpServers ?? {});
        throw new UsageError(
          `no plugin "${id}" in ${shownPath(`${host.root}/plugins`)} (plugins: ${ids.length === 0 ? 'none' : ids.join(', ')}), and no MCP server "${id}" in ${name} (servers: ${servers.length === 0 ? 'none' : servers.join(', ')}); exec is "exec"`,
        );
      }
      // A process tool: what its jail refused lately, each at the key that grants it.
      for (const refused of refusalGrants(host, tool)) {
        io.out.write(`${refused.said}\n`);
        addAt(suggestion, refused.key, refused.value);
      }
    } else if (report.manifest === undefined) {
      throw new Error(
        `plugin "${id}" did not load, so its permissions are unknown: ${report.diagnostics.join('; ')}`,
      );
    } else {
      findings = grantFindings(host, report, name, suggestion);
    }
  } finally {
    await host.close();
  }
  let done: string;
  if (tool !== undefined) {
    const what = tool === 'exec' ? 'exec' : `MCP server ${id}`;
    if (Object.keys(suggestion).length === 0) {
      io.out.write(`${what}: its jail refused nothing lately that a grant opens; nothing to change.\n`);
      return EXIT.ok;
    }
    done = `${what} now has the grants its jail refused`;
  } else {
    // Permissions no grant can make valid: say so, and write nothing for them.
    const invalid = findings.filter((f) => f.message.startsWith('declares '));
    for (const finding of invalid) io.err.write(`${render(finding, styleFor(io.err)).join('\n')}\n`);
    if (Object.keys(suggestion).length === 0) {
      io.out.write(
        invalid.length === 0
          ? `plugin ${id} has every grant it asks for in ${name}; nothing to change.\n`
          : '',
      );
      return invalid.length === 0 ? EXIT.ok : EXIT.failed;
    }
    done = `plugin ${id} now has the grants it asks for`;
  }
  return write(project.configFile, name, before, suggestion, values.yes === true, io, done);
}

/** Shows the diff of `suggestion` merged into the config, asks (or needs `--yes`), writes it. */
async function write(
  file: string,
  name: string,
  before: string | undefined,
  suggestion: Record<string, unknown>,
  yes: boolean,
  io: Io,
  done: string,
): Promise<number> {
  const style = styleFor(io.out);
  const after = addToJson(before, suggestion);
  io.out.write(`${style.bold(before === undefined ? `${name} (new file)` : name)}\n`);
  for (const line of lineDiff(before ?? '', after)) {
    io.out.write(
      `${line.startsWith('+') ? style.green(line) : line.startsWith('-') ? style.red(line) : style.dim(line)}\n`,
    );
  }
  if (!yes) {
    if (!(process.stdin.isTTY === true && io.out.tty)) {
      io.err.write(
        `toolhost: grant: not a terminal, so not asking: pass --yes to write these grants to ${name}\n`,
      );
      return EXIT.failed;
    }
    if (!(await confirm(`Write these grants to ${name}? [y/N] `))) {
      io.out.write('Nothing written.\n');
      return EXIT.failed;
    }
  }
  await writeFile(file, after);
  io.out.write(`Wrote ${name}: ${done}.\n`);
  return EXIT.ok;
}
