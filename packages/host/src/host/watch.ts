import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { buildMayRead } from '../sources/plugins/confine.js';

/** One coalesced burst of file events. */
export interface ChangeBatch {
  /** The config file changed. */
  readonly config: boolean;
  /** Ids of plugins with a changed, added or removed file (their folder name). */
  readonly plugins: ReadonlySet<string>;
  /** The plugins folder itself appeared: every plugin must be (re)loaded. */
  readonly all: boolean;
  /** Names of skills whose folder or SKILL.md changed (`*` when the skills folder came or went). */
  readonly skills: ReadonlySet<string>;
}

export interface ProjectWatcherOptions {
  readonly pluginsDir: string;
  readonly configFile: string;
  /** The skills folder, when the host has one: only its `<name>/SKILL.md` files and folders count. */
  readonly skillsDir?: string;
  /** Each event of a plugin's files, as it comes (the batch naming the plugin follows it). */
  readonly onPluginEvent?: (pluginId: string) => void;
  /** Quiet time after the last event before a batch is emitted, ms (default {@link SETTLE_MS}). */
  readonly settleMs?: number;
  /** The longest a batch waits under a continuous stream of events, ms. */
  readonly maxWaitMs?: number;
  /**
   * A changed file was checked again after chokidar's throttle window; `moved` when it had changed
   * unseen since its batch was read, and so starts a batch of its own. For tests and diagnostics.
   */
  readonly onRecheck?: (file: string, moved: boolean) => void;
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
 * The events of one save, as chokidar 5 delivers them on Linux (measured, see the load-pipeline
 * part of the scale work): a plain write is one `change`; a save touching two files is two
 * `change`s 0.5–2 ms apart; vim's default save is one `change`; a write-temp-then-rename save is
 * `add` of the temp file and `change` of the target within 1–5 ms, then the temp file's `unlink`
 * ~100 ms later (chokidar holds unlinks back to pair them with a rename). That last one needs no
 * window: a file no build can read is not an event here (see `buildMayRead`). 20 ms is six times
 * the widest gap inside one save on a loaded 2-core machine (3.1 ms, `node bench/watch-events.mjs`),
 * and a third of what a save of one plugin takes to become visible at 100 plugins (it was 30 ms,
 * half that time; bench/scale.mjs).
 */
export const SETTLE_MS = 20;

/**
 * chokidar drops a `change` of a path that comes within 50 ms of the last one it emitted for it
 * (a throttle with no trailing event, `_emit` in chokidar 5): a second save of the same file in
 * that window (format-on-save, a script writing twice, a quick undo) was never reloaded. So each
 * `change` is checked again once the window has passed: if the file's stat moved since the build
 * read it, it changed again unseen, and counts as a change. So is an `add`: a new file is created,
 * then written, and the write can come before chokidar watches the file.
 */
const CHOKIDAR_CHANGE_THROTTLE_MS = 50;
export const RECHECK_AFTER_MS = CHOKIDAR_CHANGE_THROTTLE_MS + 15;

function statSignature(file: string): string {
  try {
    const s = statSync(file, { bigint: true, throwIfNoEntry: false });
    return s === undefined ? 'gone' : `${s.mtimeNs}:${s.ctimeNs}:${s.size}:${s.ino}`;
  } catch {
    return 'gone';
  }
}

interface Guarded {
  /** The file's stat when its event came, then when its batch went out (what the build reads). */
  signature: string;
  timer: NodeJS.Timeout;
  /** Its batch went out. */
  flushed: boolean;
  /** Its recheck came before its batch went out: the batch's stat is the last one needed. */
  due: boolean;
}

/**
 * Re-checks each changed file after chokidar's throttle window (see above). The stat it compares
 * with is the one taken when the file's batch goes out, not at the event: a save is a truncate and
 * a write, and an event that falls between them is stale by the time the build reads the file, so
 * comparing with it rebuilt the plugin a second time for nothing (the save was read whole).
 */
export function throttleGuard(
  changed: (file: string) => void,
  rechecked?: (file: string, moved: boolean) => void,
) {
  const files = new Map<string, Guarded>();
  let closed = false;
  const recheck = (file: string) => {
    const entry = files.get(file);
    if (closed || entry === undefined) return;
    if (!entry.flushed) {
      // Its batch still settles: the stat taken when it goes out is compared there, once.
      entry.due = true;
      return;
    }
    files.delete(file);
    const moved = statSignature(file) !== entry.signature;
    rechecked?.(file, moved);
    if (moved) changed(file);
  };
  return {
    /**
     * A file event: a change or an add is re-checked (one timer per file, replaced by its next
     * event); a file gone is forgotten.
     */
    event(event: string, file: string): void {
      if (event !== 'change' && event !== 'add' && event !== 'unlink') return;
      clearTimeout(files.get(file)?.timer);
      if (event === 'unlink') {
        files.delete(file);
        return;
      }
      const timer = setTimeout(() => recheck(file), RECHECK_AFTER_MS);
      files.set(file, { signature: statSignature(file), timer, flushed: false, due: false });
    },
    /**
     * The batch naming every file seen since the last one goes out now. Returns the files that
     * moved since their event (a build started then may have read them half-written), and takes
     * their stat now as the one the recheck compares with.
     */
    flushing(): string[] {
      const moved: string[] = [];
      for (const [file, entry] of files) {
        if (entry.flushed) continue;
        entry.flushed = true;
        const now = statSignature(file);
        if (now !== entry.signature) moved.push(file);
        entry.signature = now;
        if (entry.due) {
          // Read whole by the batch going out now: nothing more to see.
          files.delete(file);
          rechecked?.(file, false);
        }
      }
      return moved;
    },
    close(): void {
      closed = true;
      for (const entry of files.values()) clearTimeout(entry.timer);
      files.clear();
    },
  };
}

/** File events, as opposed to folder ones (a folder added or removed always counts). */
const FILE_EVENTS = new Set(['add', 'change', 'unlink']);

/**
 * Watches the plugins folder and the config file. Events are coalesced: editors that write then
 * rename, a save touching several files, a `git checkout` — each becomes one batch naming every
 * plugin it touched. Watcher errors are reported, never thrown out of a callback.
 */
export function watchProject(options: ProjectWatcherOptions): ProjectWatcher {
  const settleMs = options.settleMs ?? SETTLE_MS;
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  const configFile = path.resolve(options.configFile);
  const pluginsDir = path.resolve(options.pluginsDir);
  let config = false;
  let all = false;
  let plugins = new Set<string>();
  const skillsDir = options.skillsDir === undefined ? undefined : path.resolve(options.skillsDir);
  let skills = new Set<string>();
  let settle: NodeJS.Timeout | undefined;
  let firstEventAt: number | undefined;

  const flush = () => {
    settle = undefined;
    firstEventAt = undefined;
    // A file that moved since its event: a build started at the event may have read it
    // half-written, so its plugin is told of it again (that build is not the batch's).
    const moved = guard.flushing();
    const batch: ChangeBatch = { config, plugins, all, skills };
    config = false;
    all = false;
    plugins = new Set();
    skills = new Set();
    if (!batch.config && !batch.all && batch.plugins.size === 0 && batch.skills.size === 0) return;
    try {
      for (const file of moved) {
        const at = pluginPathOf(path.resolve(file));
        if (at?.file === true) options.onPluginEvent?.(at.id);
      }
      options.onBatch(batch);
    } catch (error) {
      options.onError(error instanceof Error ? error : new Error(String(error)));
    }
  };

  /** The plugin a path under the plugins folder belongs to, and whether it is a file in it (not its folder). */
  const pluginPathOf = (absolute: string): { id: string; file: boolean } | undefined => {
    const rel = path.relative(pluginsDir, absolute);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    const [id] = rel.split(path.sep);
    return id === undefined ? undefined : { id, file: rel !== id };
  };

  const record = (file: string) => {
    const absolute = path.resolve(file);
    if (absolute === configFile) config = true;
    else if (absolute === pluginsDir) all = true;
    else if (absolute === skillsDir) skills.add('*');
    else if (skillsDir !== undefined && absolute.startsWith(skillsDir + path.sep)) {
      const [name] = path.relative(skillsDir, absolute).split(path.sep);
      if (name !== undefined) skills.add(name);
    } else {
      const at = pluginPathOf(absolute);
      if (at === undefined) return;
      plugins.add(at.id);
      // A plugin file (not the folder itself): its build may start while the batch settles.
      if (at.file) options.onPluginEvent?.(at.id);
    }
    const now = Date.now();
    firstEventAt ??= now;
    clearTimeout(settle);
    const wait = Math.max(0, Math.min(settleMs, firstEventAt + maxWaitMs - now));
    settle = setTimeout(flush, wait);
  };

  const guard = throttleGuard(record, options.onRecheck);
  const ignored = (file: string) => file.split(path.sep).some((segment) => IGNORED_SEGMENTS.has(segment));
  const onError = (error: unknown) =>
    options.onError(error instanceof Error ? error : new Error(String(error)));
  const readyOf = (watcher: FSWatcher) =>
    new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  const watchers: FSWatcher[] = [];
  const readies: Promise<void>[] = [];

  // Only paths that exist are handed to chokidar: a missing one makes it report `ready` before it
  // has scanned the others (chokidar #950), and an edit made right then would be lost. The config's
  // folder is watched one level deep instead, which also sees the file and a plugins folder appear.
  let pluginsWatcher: FSWatcher | undefined;
  const watchPlugins = () => {
    if (pluginsWatcher !== undefined || !existsSync(pluginsDir)) return;
    pluginsWatcher = watch(pluginsDir, { ignoreInitial: true, ignored });
    pluginsWatcher.on('all', (event, file) => {
      // An editor's temp or backup file, notes, images: nothing a build or the discovery reads.
      if (FILE_EVENTS.has(event) && !buildMayRead(file)) return;
      guard.event(event, file);
      record(file);
    });
    pluginsWatcher.on('error', onError);
    watchers.push(pluginsWatcher);
    readies.push(readyOf(pluginsWatcher));
  };
  const configDir = path.dirname(configFile);
  const rootWatcher = watch(configDir, { ignoreInitial: true, ignored, depth: 0 });
  rootWatcher.on('all', (event, file) => {
    const absolute = path.resolve(file);
    if (absolute === pluginsDir && event === 'addDir') {
      watchPlugins();
      record(pluginsDir);
    } else if (absolute === pluginsDir && event === 'unlinkDir') {
      // The folder went (a checkout of a branch without it): a new watcher is needed when it returns.
      const gone = pluginsWatcher;
      pluginsWatcher = undefined;
      if (gone !== undefined) {
        watchers.splice(watchers.indexOf(gone), 1);
        void gone.close();
      }
      record(pluginsDir);
    } else if (absolute === configFile) {
      guard.event(event, absolute);
      record(absolute);
    }
  });
  rootWatcher.on('error', onError);
  watchers.push(rootWatcher);
  readies.push(readyOf(rootWatcher));
  watchPlugins();
  let skillsWatcher: FSWatcher | undefined;
  const watchSkills = () => {
    if (skillsDir === undefined || skillsWatcher !== undefined || !existsSync(skillsDir)) return;
    // Depth 1: `<name>/` and `<name>/SKILL.md`; nothing else of a skill folder is read.
    skillsWatcher = watch(skillsDir, { ignoreInitial: true, ignored, depth: 1 });
    skillsWatcher.on('all', (event, file) => {
      if (FILE_EVENTS.has(event) && path.basename(file) !== 'SKILL.md') return;
      guard.event(event, file);
      record(file);
    });
    skillsWatcher.on('error', onError);
    watchers.push(skillsWatcher);
    readies.push(readyOf(skillsWatcher));
  };
  if (skillsDir !== undefined && path.dirname(skillsDir) === configDir) {
    rootWatcher.on('addDir', (dir) => {
      if (path.resolve(dir) !== skillsDir) return;
      watchSkills();
      record(skillsDir);
    });
    rootWatcher.on('unlinkDir', (dir) => {
      if (path.resolve(dir) !== skillsDir || skillsWatcher === undefined) return;
      const gone = skillsWatcher;
      skillsWatcher = undefined;
      watchers.splice(watchers.indexOf(gone), 1);
      void gone.close();
      record(skillsDir);
    });
  }
  watchSkills();
  const ready = Promise.all(readies).then(() => undefined);

  return {
    ready,
    async close() {
      clearTimeout(settle);
      guard.close();
      await Promise.all(watchers.map((watcher) => watcher.close()));
    },
  };
}
