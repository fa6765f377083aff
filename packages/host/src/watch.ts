import * as path from 'node:path';
import { type FSWatcher, watch } from 'chokidar';

/** One coalesced burst of file events. */
export interface ChangeBatch {
  /** The config file changed. */
  readonly config: boolean;
  /** Ids of plugins with a changed, added or removed file (their folder name). */
  readonly plugins: ReadonlySet<string>;
}

export interface ProjectWatcherOptions {
  readonly pluginsDir: string;
  readonly configFile: string;
  /** Quiet time after the last event before a batch is emitted, ms. */
  readonly settleMs?: number;
  /** The longest a batch waits under a continuous stream of events, ms. */
  readonly maxWaitMs?: number;
  readonly onBatch: (batch: ChangeBatch) => void;
  readonly onError: (error: Error) => void;
}

export interface ProjectWatcher {
  /** Resolves once the initial scan is done and events are being delivered. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

const IGNORED_SEGMENTS = new Set(['node_modules', '.git', '.toolhost']);

/**
 * Watches the plugins folder and the config file. Events are coalesced: editors that write then
 * rename, a save touching several files, a `git checkout` — each becomes one batch naming every
 * plugin it touched. Watcher errors are reported, never thrown out of a callback.
 */
export function watchProject(options: ProjectWatcherOptions): ProjectWatcher {
  const settleMs = options.settleMs ?? 60;
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  const configFile = path.resolve(options.configFile);
  const pluginsDir = path.resolve(options.pluginsDir);
  let config = false;
  let plugins = new Set<string>();
  let settle: NodeJS.Timeout | undefined;
  let firstEventAt: number | undefined;

  const flush = () => {
    settle = undefined;
    firstEventAt = undefined;
    const batch: ChangeBatch = { config, plugins };
    config = false;
    plugins = new Set();
    if (!batch.config && batch.plugins.size === 0) return;
    try {
      options.onBatch(batch);
    } catch (error) {
      options.onError(error instanceof Error ? error : new Error(String(error)));
    }
  };

  const record = (file: string) => {
    const absolute = path.resolve(file);
    if (absolute === configFile) config = true;
    else {
      const rel = path.relative(pluginsDir, absolute);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return;
      const [id] = rel.split(path.sep);
      if (id !== undefined) plugins.add(id);
    }
    const now = Date.now();
    firstEventAt ??= now;
    clearTimeout(settle);
    const wait = Math.max(0, Math.min(settleMs, firstEventAt + maxWaitMs - now));
    settle = setTimeout(flush, wait);
  };

  const watcher: FSWatcher = watch([pluginsDir, configFile], {
    ignoreInitial: true,
    ignored: (file) => file.split(path.sep).some((segment) => IGNORED_SEGMENTS.has(segment)),
  });
  watcher.on('all', (_event, file) => record(file));
  watcher.on('error', (error) => options.onError(error instanceof Error ? error : new Error(String(error))));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    ready,
    async close() {
      clearTimeout(settle);
      await watcher.close();
    },
  };
}
