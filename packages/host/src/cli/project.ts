import * as path from 'node:path';
import { type ConfigOutcome, loadConfigFile } from '../config/load.js';
import { sandboxSettingOf } from '../config/sandbox.js';
import { createHost, type ToolHost } from '../host/host.js';
import type { HostOptions } from '../host/types.js';
import { isDirectory, isFile } from '../util/stat.js';
import { UsageError } from './args.js';
import { type Io, startProgress } from './io.js';
import { RestartWithFlag, SNAPSHOT_FLAG } from './restart.js';

/** Where a command's project lives, from `--root` and `--config`. */
export interface Project {
  /** Absolute. */
  readonly root: string;
  /** Absolute; it may not exist unless given with `--config`. */
  readonly configFile: string;
  /** Whether `--config` named it. */
  readonly configGiven: boolean;
  /** The config as read now (a later `createHost` reads it again). */
  readonly config: ConfigOutcome;
}

/**
 * Resolves `--root` and `--config` (relative to the working directory). A root that is not a
 * folder, or a `--config` file that does not exist, is a usage error. With `sandbox: 'inline'`
 * in config and no `--no-node-snapshot` in this process, a command that will start a host
 * (`forHost`, the default) gets {@link RestartWithFlag}.
 */
export async function resolveProject(
  flags: { root?: string; config?: string },
  { forHost = true }: { forHost?: boolean } = {},
): Promise<Project> {
  const root = path.resolve(flags.root ?? '.');
  if (!(await isDirectory(root))) {
    throw new UsageError(`--root ${flags.root ?? '.'}: no such directory`);
  }
  const configGiven = flags.config !== undefined;
  const configFile =
    flags.config === undefined ? path.join(root, 'toolhost.config.json') : path.resolve(flags.config);
  if (configGiven && !(await isFile(configFile))) {
    throw new UsageError(`--config ${flags.config}: no such file`);
  }
  const config = await loadConfigFile(configFile);
  if (
    forHost &&
    config.ok &&
    sandboxSettingOf(config.config).mode === 'inline' &&
    !process.execArgv.includes(SNAPSHOT_FLAG)
  ) {
    throw new RestartWithFlag(`sandbox 'inline' needs ${SNAPSHOT_FLAG}`);
  }
  return { root, configFile, configGiven, config };
}

/**
 * Resolves once no plugin is still loading: a host publishes the plugins that are ready and lets
 * one that lags far behind land later, with a change of its own.
 */
async function pluginsLanded(host: ToolHost): Promise<void> {
  const loading = () => host.plugins.some((plugin) => plugin.status === 'loading');
  if (!loading()) return;
  await new Promise<void>((resolve) => {
    const stop = host.on('change', () => {
      if (loading()) return;
      stop();
      resolve();
    });
  });
}

/**
 * Creates the project's host (loading and bundling every plugin), with a progress line on a
 * terminal while that runs. Throws `ConfigError` for an invalid config. A one-shot command waits
 * for every plugin (`waitForPlugins`, default unless watching): its answer is about all of them.
 */
export async function openHost(
  project: Project,
  io: Io,
  options: Pick<HostOptions, 'watch' | 'cache' | 'sandbox'> & { waitForPlugins?: boolean } = {},
): Promise<ToolHost> {
  const progress = startProgress(io.err, 'loading plugins');
  try {
    const host = await createHost({
      root: project.root,
      ...(project.configGiven ? { configFile: project.configFile } : {}),
      watch: options.watch ?? false,
      ...(options.cache === undefined ? {} : { cache: options.cache }),
      // A --sandbox flag is laid over the file's `sandbox`, as any config given in code is.
      ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    });
    if (options.waitForPlugins ?? options.watch !== true) await pluginsLanded(host);
    return host;
  } finally {
    progress.stop();
  }
}
