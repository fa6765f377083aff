import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { ToolResult } from '@toolhost/plugin-sdk';
import type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from '../../core/dispatch/approvals.js';
import { resultText } from '../../core/wrap/results.js';
import type { CallObserver } from '../../core/wrap/wrapper.js';
import type { ToolHost } from '../../host/host.js';
import { parseCommand, UsageError } from '../args.js';
import { projectCommand } from '../findings.js';
import { FLAGS } from '../flags.js';
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

/**
 * What the command line approves: nothing (`none`: asked on a terminal, else refused), the
 * approvals of the named tool's own call (`own`: `--yes`), or every approval the call leads to,
 * the calls a run_code script or a skill makes included (`all`: `--yes-all`).
 */
type Consent = 'none' | 'own' | 'all';

function consentOf(values: { yes?: boolean; 'yes-all'?: boolean }): Consent {
  return values['yes-all'] === true ? 'all' : values.yes === true ? 'own' : 'none';
}

/** Why `--yes` did not answer an approval: it belongs to a call the named tool made. */
function notOwn(name: string): string {
  return `--yes approves only the approvals of "${name}" itself, not of the calls it makes (a run_code script's, a skill's): pass --yes-all to approve those too`;
}

const onTerminal = (io: Io) => process.stdin.isTTY === true && io.err.tty;

/**
 * Who approves for `toolhost call`: `--yes` the call of `name` itself (its tool use id `own`),
 * `--yes-all` every call; whatever they leave is asked on a terminal, else refused saying why.
 * A script's gated calls are not approved by a `--yes` given for `run_code`: one consent for the
 * script is not consent for whatever the script then does.
 */
function approverFor(consent: Consent, own: string, name: string, io: Io): ApprovalHandler {
  const ask = onTerminal(io) ? (request: ApprovalRequest) => askOnTerminal(request, io) : undefined;
  return async (request) => {
    if (consent === 'all') return { decision: 'allow-once', by: '--yes-all' };
    if (consent === 'own' && request.toolUseId === own) return { decision: 'allow-once', by: '--yes' };
    if (ask !== undefined) return ask(request);
    return {
      decision: 'deny',
      by: 'toolhost call',
      reason:
        consent === 'own'
          ? notOwn(name)
          : 'not a terminal, so nobody could be asked: pass --yes to approve it',
    };
  };
}

/**
 * The tool a server's approval question is about: its second-to-last line reads
 * `Tool: NAME (severity)` (serve/approval.ts; the last is the input, as one line of JSON).
 */
function questionTool(question: string): string | undefined {
  const lines = question.split('\n');
  return /^Tool: (\S+) \((?:info|warning|critical)\)$/.exec(lines[lines.length - 2] ?? '')?.[1];
}

/** `--url`'s answer to a server's approval question: as {@link approverFor}, by the question's tool. */
function remoteApproverFor(consent: Consent, name: string, io: Io): RemoteApprover {
  const asked = onTerminal(io);
  return async (question, signal) => {
    if (consent === 'all') return 'allow-once';
    if (consent === 'own' && questionTool(question) === name) return 'allow-once';
    if (!asked) {
      io.err.write(
        consent === 'own'
          ? `the server asks for approval of another call: ${notOwn(name)}\n`
          : 'the server asks for approval, and this is not a terminal: pass --yes to approve it\n',
      );
      return 'deny';
    }
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
  const { values, positionals } = parseCommand('call', argv, FLAGS.call.options, FLAGS.call.positionals);
  const [name = ''] = positionals;
  const input = await inputOf(values);
  if (values.token !== undefined && values.url === undefined) {
    throw new UsageError('--token goes with --url');
  }
  if (values.url !== undefined) {
    if (values.config !== undefined) {
      throw new UsageError(
        "--url calls a running server, whose config is its own: drop --config (--root only says where the project's token is)",
      );
    }
    const { callOverHttp, tokenFor } = await import('../remote.js');
    const approve = remoteApproverFor(consentOf(values), name, io);
    const token = await tokenFor(values.token, values.root);
    const result = await callOverHttp(values.url, name, input, logLine(io), approve, token);
    return printResult(result, values.json === true, io);
  }
  const project = await resolveProject(values);
  const host = await openHost(project, io);
  try {
    // The named call's own tool use id: what --yes approves, and nothing else.
    const own = `toolu_cli_${randomUUID().replaceAll('-', '')}`;
    const session = host.session({ onApproval: approverFor(consentOf(values), own, name, io) });
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
    const { result } = await session.call(name, input, own, { observer: { log: logLine(io) } });
    return printResult(result, values.json === true, io);
  } finally {
    await host.close();
  }
}
