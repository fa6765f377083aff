import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { ToolResult } from '@toolhost/plugin-sdk';
import type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from '../../core/dispatch/approvals.js';
import { resultText } from '../../core/wrap/results.js';
import type { CallObserver } from '../../core/wrap/wrapper.js';
import type { ToolHost } from '../../host/host.js';
import { COMMON_OPTIONS, parseCommand, UsageError } from '../args.js';
import { projectCommand } from '../findings.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import type { RemoteApprover } from '../remote.js';
import { type CallJson, EXIT } from '../types.js';
import { shownPath } from '../view.js';

function parseInput(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function inputOf(values: { input?: string; 'input-file'?: string }): Promise<unknown> {
  const file = values['input-file'];
  if (values.input !== undefined && file !== undefined) {
    throw new UsageError('give --input or --input-file, not both');
  }
  if (values.input !== undefined) return parseInput(values.input, '--input');
  if (file === undefined) return {};
  if (file === '-') return parseInput(await readStdin(), '--input-file - (stdin)');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--input-file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  return parseInput(text, `--input-file ${file}`);
}

/**
 * For a tool the host does not know: the plugins that failed to load, whose tools nobody can
 * know, each with why — the one whose id starts the name first, if any does.
 */
function failedPluginsNote(host: ToolHost, name: string, configName: string): string {
  const failed = host.plugins.filter((p) => p.status === 'failed' || p.status === 'quarantined');
  if (failed.length === 0) return '';
  const owner = failed.find((p) => name.startsWith(`${p.id}_`) || name.startsWith(`${p.id}-`));
  const shown = owner === undefined ? failed : [owner];
  const lines = shown.map(
    (p) =>
      `plugin "${p.id}" ${p.status === 'failed' ? 'failed to load' : 'is quarantined'}: ${p.diagnostics.join('; ')}`,
  );
  const head =
    owner === undefined
      ? `\nIt may belong to a plugin that did not load (its tools are unknown until it does):`
      : `\nIt likely belongs to plugin "${owner.id}", which did not load:`;
  return `${head}\n${lines.map((line) => `  ${line}`).join('\n')}\nRun ${projectCommand(host, 'doctor', configName)} for the details.`;
}

/** Prints a result as `call` does: its text (or JSON) on stdout; the exit code says whether it is an error. */
function printResult(result: ToolResult, json: boolean, io: Io): number {
  const isError = result.isError === true;
  if (json) {
    const out: CallJson = {
      content: result.content,
      isError,
      ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    };
    io.out.write(`${JSON.stringify(out)}\n`);
  } else {
    const text = resultText(result);
    // An error result is the tool's answer, not the CLI's: stdout, so it can be piped like any other.
    io.out.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  }
  return isError ? EXIT.failed : EXIT.ok;
}

function logLine(io: Io): NonNullable<CallObserver['log']> {
  const style = styleFor(io.err);
  return (level, message, data) =>
    io.err.write(
      `${style.dim(`[${level}]`)} ${message}${data === undefined ? '' : ` ${JSON.stringify(data)}`}\n`,
    );
}

/** Asks on the terminal (stderr, so stdout stays the result): y = once, a = always, anything else no. */
async function askOnTerminal(request: ApprovalRequest, io: Io): Promise<ApprovalAnswer> {
  const style = styleFor(io.err);
  const severity = request.severity === 'critical' ? style.red : style.yellow;
  io.err.write(
    `${severity(`[${request.severity}]`)} ${style.bold(request.title)}\n` +
      (request.description === undefined ? '' : `  ${request.description}\n`) +
      `  tool: ${request.tool}\n  input: ${JSON.stringify(request.input)}\n`,
  );
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const reply = await prompt.question('Approve? [y = once, a = always, N = no] ', {
      signal: request.signal,
    });
    const choice = reply.trim().toLowerCase();
    if (choice === 'y' || choice === 'yes') return { decision: 'allow-once', by: 'terminal' };
    if (choice === 'a' || choice === 'always') return { decision: 'allow-always', by: 'terminal' };
    return { decision: 'deny', by: 'terminal', reason: 'answered no at the prompt' };
  } finally {
    prompt.close();
  }
}

/** Who approves for `toolhost call`: --yes, else the person at the terminal, else nobody (a refusal naming --yes). */
function approverFor(yes: boolean, io: Io): ApprovalHandler {
  if (yes) return async () => ({ decision: 'allow-once', by: '--yes' });
  if (process.stdin.isTTY === true && io.err.tty) return (request) => askOnTerminal(request, io);
  return async () => ({
    decision: 'deny',
    by: 'toolhost call',
    reason: 'not a terminal, so nobody could be asked: pass --yes to approve it',
  });
}

/** `--url`'s answer to a server's approval question: --yes, else the terminal, else no. */
function remoteApproverFor(yes: boolean, io: Io): RemoteApprover {
  if (yes) return async () => 'allow-once';
  if (process.stdin.isTTY !== true || !io.err.tty) {
    return async () => {
      io.err.write('the server asks for approval, and this is not a terminal: pass --yes to approve it\n');
      return 'deny';
    };
  }
  return async (question, signal) => {
    io.err.write(`${styleFor(io.err).bold(question)}\n`);
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const reply = (await prompt.question('Approve? [y = once, a = always, N = no] ', { signal }))
        .trim()
        .toLowerCase();
      return reply === 'y' || reply === 'yes'
        ? 'allow-once'
        : reply === 'a' || reply === 'always'
          ? 'allow-always'
          : 'deny';
    } finally {
      prompt.close();
    }
  };
}

export async function call(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(
    'call',
    argv,
    {
      ...COMMON_OPTIONS,
      input: { type: 'string' },
      'input-file': { type: 'string' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
    },
    ['NAME'],
  );
  const [name = ''] = positionals;
  const input = await inputOf(values);
  if (values.url !== undefined) {
    if (values.root !== undefined || values.config !== undefined) {
      throw new UsageError(
        '--url calls a running server, whose project is its own: drop --root and --config',
      );
    }
    const { callOverHttp } = await import('../remote.js');
    const approve = remoteApproverFor(values.yes === true, io);
    const result = await callOverHttp(values.url, name, input, logLine(io), approve);
    return printResult(result, values.json === true, io);
  }
  const project = await resolveProject(values);
  const host = await openHost(project, io);
  try {
    const session = host.session({ onApproval: approverFor(values.yes === true, io) });
    const check = session.check(name);
    if (!check.ok && check.refusal === 'unknown') {
      return printResult(
        {
          content: [
            {
              type: 'text',
              text: check.message + failedPluginsNote(host, name, shownPath(project.configFile)),
            },
          ],
          isError: true,
        },
        values.json === true,
        io,
      );
    }
    // The tool's ctx.log lines go to stderr, so stdout stays the result alone.
    const { result } = await session.call(name, input, undefined, { observer: { log: logLine(io) } });
    return printResult(result, values.json === true, io);
  } finally {
    await host.close();
  }
}
