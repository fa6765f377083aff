import { promises as fs } from 'node:fs';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { errorCode } from '../../util/errors.js';
import { describeFsError } from '../../workspace/confine.js';
import type { ControlGuard } from '../../workspace/control.js';
import { type ProcessOutcome, runProcess } from './run-process.js';
import { abortSignalOf } from './signal.js';

/** What the `exec` tool is built with, defaults applied. */
export interface ExecSettings {
  readonly root: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly allowedCommands?: readonly string[];
  /** Refuses a cwd inside a control folder (a start there would be the obvious way in; not a confinement). */
  readonly control: ControlGuard;
}

const input = z.object({
  command: z.string().min(1).describe('The program to run: a name looked up on PATH, or a path'),
  args: z
    .array(z.string())
    .optional()
    .describe('Arguments, passed as they are (no shell: no quoting, globs or pipes)'),
  cwd: z
    .string()
    .optional()
    .describe('Working directory, relative to the workspace root (or absolute inside it); default the root'),
});

const output = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
});

/**
 * The `exec` tool: runs a program without a shell, in a workspace directory, with a timeout and an
 * output cap. Only its working directory is confined (inside the root, outside the host's closed
 * control folders): the program itself can reach anything the host process can — the config file
 * included — so hosts offer it only on purpose (and, ideally, with `allowedCommands`).
 */
export function execTool(settings: ExecSettings) {
  const allowed = settings.allowedCommands === undefined ? undefined : new Set(settings.allowedCommands);
  return defineTool({
    name: 'exec',
    title: 'Run program',
    description:
      'Run a program (no shell: pass arguments as an array; pipes, redirects and globs do not work) in a ' +
      `workspace directory. Returns the exit code, stdout and stderr. Killed after ${settings.timeoutMs} ms; ` +
      `output beyond ${settings.maxOutputBytes} bytes is dropped.` +
      (allowed === undefined ? '' : ` Allowed commands: ${[...allowed].join(', ')}.`),
    input,
    output,
    annotations: { destructiveHint: true, openWorldHint: true },
    async execute({ command, args = [], cwd = '.' }, ctx) {
      ctx.signal.throwIfAborted();
      if (allowed !== undefined && !allowed.has(command)) {
        throw new Error(
          `command ${JSON.stringify(command)} is not allowed; allowed commands: ${[...allowed].join(', ') || '(none)'}`,
        );
      }
      const { real } = await settings.control.confine(settings.root, cwd, 'cwd');
      const stat = await fs.stat(real).catch((error: unknown) => {
        throw describeFsError(error, cwd);
      });
      if (!stat.isDirectory()) throw new Error(`cwd ${JSON.stringify(cwd)} is not a directory`);
      ctx.signal.throwIfAborted();
      const outcome = await runProcess({
        command,
        args,
        cwd: real,
        timeoutMs: settings.timeoutMs,
        maxOutputBytes: settings.maxOutputBytes,
        signal: abortSignalOf(ctx.signal),
        onSpawn: (pid) => ctx.log.debug(`exec: started ${command} (pid ${pid})`, { pid }),
      }).catch((error: unknown) => {
        throw spawnError(error, command);
      });
      if (outcome.aborted)
        throw new Error(`exec of ${JSON.stringify(command)} was cancelled; the process was killed`);
      return {
        content: [{ type: 'text' as const, text: render(outcome, settings) }],
        structuredContent: {
          exitCode: outcome.exitCode,
          signal: outcome.signal,
          stdout: outcome.stdout,
          stderr: outcome.stderr,
          timedOut: outcome.timedOut,
          truncated: outcome.omittedBytes > 0,
        },
        ...(outcome.timedOut ? { isError: true } : {}),
      };
    },
  });
}

function spawnError(error: unknown, command: string): unknown {
  const code = errorCode(error);
  if (code === 'ENOENT') {
    return new Error(`command ${JSON.stringify(command)} was not found (not on PATH, or no such file)`);
  }
  if (code === 'EACCES')
    return new Error(`command ${JSON.stringify(command)} is not executable (permission denied)`);
  return error;
}

function render(outcome: ProcessOutcome, settings: ExecSettings): string {
  const lines: string[] = [];
  if (outcome.timedOut) lines.push(`timed out after ${settings.timeoutMs} ms; the process was killed`);
  else if (outcome.exitCode !== null) lines.push(`exit code: ${outcome.exitCode}`);
  else lines.push(`killed by signal ${outcome.signal ?? 'unknown'}`);
  lines.push('--- stdout ---', outcome.stdout, '--- stderr ---', outcome.stderr);
  if (outcome.omittedBytes > 0) {
    lines.push(
      `[output truncated: ${outcome.omittedBytes} bytes past the ${settings.maxOutputBytes}-byte cap were dropped]`,
    );
  }
  return lines.join('\n');
}
