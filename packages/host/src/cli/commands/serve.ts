import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { sandboxSettingOf } from '../../config/sandbox.js';
import { type EarlyStdio, servedToolsKey, startEarlyStdio } from '../../serve/early-stdio.js';
import { supervisionOf } from '../../serve/reports.js';
import { parseCommand, UsageError } from '../args.js';
import { FLAGS } from '../flags.js';
import type { Io } from '../io.js';
import { version } from '../version.js';

type Sandbox = 'process' | 'inline';

function sandboxOf(flag: string | undefined): Sandbox | undefined {
  if (flag === undefined || flag === 'process' || flag === 'inline') return flag;
  throw new UsageError(`--sandbox must be "process" or "inline", not ${JSON.stringify(flag)}`);
}

/**
 * `toolhost serve`. Where isolates live: `--sandbox`, else the config's `sandbox`, else `process`,
 * over stdio as over HTTP: the serve process holds the config, the project and the built-in tools,
 * so plugin code runs in the executor process, behind the second wall (its jail). `inline` runs
 * isolates in the serve process itself, behind the isolate alone, under a supervisor that restarts
 * it and answers the requests it had in flight (`InFlightSlots`); it saves a process hop per call.
 *
 * This file is the light half: a stdio serve that will answer in this very process starts its
 * early answers (serve/early-stdio.ts) before anything heavy is imported, then loads the rest
 * (serve-run.ts).
 */
export async function serve(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('serve', argv, FLAGS.serve.options);
  const flag = sandboxOf(values.sandbox);
  const early = values.http === undefined ? earlyAnswers(values, flag) : undefined;
  await early?.settled();
  const { runServe } = await import('./serve-run.js');
  return runServe(values, argv, io, early, flag);
}

/**
 * The early answers, when this process will serve stdio itself: not a supervisor (`inline`, read
 * from the flag or, unchecked, from the config) and not a restarted serve (its client initialized
 * the process it replaces).
 */
function earlyAnswers(
  values: { root?: string; config?: string },
  flag: Sandbox | undefined,
): EarlyStdio | undefined {
  const supervision = supervisionOf(process.env);
  if (supervision !== undefined && supervision.restart > 0) return undefined;
  const root = path.resolve(values.root ?? '.');
  const configFile =
    values.config === undefined ? path.join(root, 'toolhost.config.json') : path.resolve(values.config);
  if (supervision === undefined && (flag ?? configuredSandbox(configFile)) !== 'process') return undefined;
  return startEarlyStdio({ root, key: servedToolsKey(version, configFile), version });
}

/** The config's `sandbox` mode, read without checking the config; `undefined` when unsure. */
function configuredSandbox(configFile: string): Sandbox | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(configFile, 'utf8'));
  } catch {
    // No config file: the default. A file that does not parse: the host reports it and serves
    // with the defaults too.
    return 'process';
  }
  if (typeof raw !== 'object' || raw === null) return 'process';
  return sandboxSettingOf(raw as Parameters<typeof sandboxSettingOf>[0]).mode;
}
