import { promises as fs } from 'node:fs';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { type GateRefusal, openNetGate } from '../../capabilities/index.js';
import type { ProcessSandbox } from '../../config/process-sandbox.js';
import type { JailSetting } from '../../config/sandbox.js';
import { execView, jailLaunch, jailPlacement, type NetGate, whichCommand } from '../../jail/index.js';
import { type JailRefusal, recordRefusals, refusalText } from '../../jail/refusals.js';
import { errorCode } from '../../util/errors.js';
import { describeFsError } from '../../workspace/confine.js';
import type { ControlGuard } from '../../workspace/control.js';
import { execFsRefusals, NO_NETWORK } from './exec-refusals.js';
import { type ProcessOutcome, runProcess } from './run-process.js';
import { abortSignalOf } from './signal.js';

/** What the `exec` tool is built with, defaults applied. */
export interface ExecSettings {
  readonly root: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly allowedCommands?: readonly string[];
  /** Refuses a cwd inside a control folder; in the jail, says which control paths it holds read-only. */
  readonly control: ControlGuard;
  /** `sandbox.jail`: the one rule of where a jail cannot be made. */
  readonly jail: JailSetting;
  /** `builtins.exec.sandbox`, resolved: jailed or not, and what it grants. */
  readonly sandbox: ProcessSandbox;
  /** The environment granted variables come from. */
  readonly env: NodeJS.ProcessEnv;
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
 * output cap, inside a jail by default (jail/process-view.ts `execView`): the workspace root
 * writable except the host's control files, which stay read-only (the config hidden unless
 * `builtins.controlFiles.config` opens it) for the program and everything it starts, the rest of
 * the file system read-only, no network but the hosts `builtins.exec.sandbox.net` grants, a
 * minimal environment. What the jail refused comes back in the result, naming the key that
 * grants it. `builtins.exec.sandbox: false` runs programs unjailed: they then reach anything the
 * host process can, the config file included.
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
      (allowed === undefined ? '' : ` Allowed commands: ${[...allowed].join(', ')}.`) +
      (settings.sandbox.jail
        ? ' It runs in a jail: it may write only inside the workspace (never its config file, plugins/ or skills/), ' +
          (settings.sandbox.grants.net.length === 0
            ? 'has no network, '
            : `connects only to ${settings.sandbox.grants.net.join(', ')}, `) +
          'and what the jail refused is said in the result.'
        : ''),
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
      const placement = settings.sandbox.jail ? jailPlacement(settings.jail) : undefined;
      if (placement?.jailed === false && placement.refused) {
        throw new Error(
          `exec will not run unjailed: ${placement.reason}. Make the jail possible here, set builtins.exec.sandbox to false to run exec unjailed on purpose, or sandbox.jail to 'auto'`,
        );
      }
      const netRefusals: GateRefusal[] = [];
      let gate: NetGate | undefined;
      let outcome: ProcessOutcome;
      try {
        let jail: Parameters<typeof runProcess>[0]['jail'];
        if (placement?.jailed === true) {
          const { grants } = settings.sandbox;
          if (grants.net.length > 0) gate = await openNetGate(grants.net, (r) => netRefusals.push(r));
          const view = execView({
            root: await fs.realpath(settings.root),
            cwd: real,
            control: settings.control.jailPaths(),
            grants,
            env: settings.env,
            seccomp: placement.seccomp,
          });
          // The jail sees the host's programs as they are: a command missing here is missing there.
          if (whichCommand(command, view.env.PATH, real) === undefined)
            throw spawnError(Object.assign(new Error(`${command} not found`), { code: 'ENOENT' }), command);
          jail = jailLaunch(placement, view, [command, ...args], gate);
        }
        outcome = await runProcess({
          command,
          args,
          cwd: real,
          timeoutMs: settings.timeoutMs,
          maxOutputBytes: settings.maxOutputBytes,
          signal: abortSignalOf(ctx.signal),
          onSpawn: (pid) => ctx.log.debug(`exec: started ${command} (pid ${pid})`, { pid }),
          ...(jail === undefined ? {} : { jail }),
        }).catch((error: unknown) => {
          throw spawnError(error, command);
        });
      } finally {
        await gate?.close();
      }
      if (outcome.aborted)
        throw new Error(`exec of ${JSON.stringify(command)} was cancelled; the process was killed`);
      const refusals = placement?.jailed === true ? jailRefusals(outcome, netRefusals, settings, real) : [];
      recordRefusals(settings.root, refusals);
      const notes = refusals.map((r) => refusalText(r));
      if (
        placement?.jailed === true &&
        settings.sandbox.grants.net.length === 0 &&
        NO_NETWORK.test(`${outcome.stdout}\n${outcome.stderr}`)
      )
        notes.push(
          'exec runs without a network: its jail connects only to hosts builtins.exec.sandbox.net grants (for example ["api.example.com"])',
        );
      if (placement?.jailed === true && outcome.exitCode === 127 && /execvp|cannot run/.test(outcome.stderr))
        notes.push(
          `command ${JSON.stringify(command)} was not found in the jail (not on PATH, or no such file)`,
        );
      return {
        content: [{ type: 'text' as const, text: render(outcome, settings, notes) }],
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

/** What the jail refused this run: the gate's connections, and the writes its stderr names. */
function jailRefusals(
  outcome: ProcessOutcome,
  net: readonly GateRefusal[],
  settings: ExecSettings,
  cwd: string,
): JailRefusal[] {
  const at = Date.now();
  const seen = new Set<string>();
  const refusals: JailRefusal[] = [];
  for (const r of net) {
    const what = `${r.host}:${r.port}`;
    if (seen.has(what)) continue;
    seen.add(what);
    refusals.push({
      tool: 'exec',
      kind: 'net',
      what,
      why: r.why,
      key: 'builtins.exec.sandbox.net',
      grant: r.grant,
      at,
    });
  }
  for (const refusal of execFsRefusals(outcome.stderr, settings.root, cwd, settings.control.jailPaths())) {
    refusals.push({ tool: 'exec', ...refusal, at });
  }
  return refusals;
}

function render(outcome: ProcessOutcome, settings: ExecSettings, notes: readonly string[] = []): string {
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
  if (notes.length > 0) lines.push('--- jail ---', ...notes);
  return lines.join('\n');
}
