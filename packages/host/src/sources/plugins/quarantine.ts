import { readJson, writeAtomic } from './cache-files.js';
import { hiddenLoad } from './load.js';
import type { PluginLoad } from './types.js';

/** Executor process deaths charged to one plugin, as it is loaded now, before it is quarantined. */
export const QUARANTINE_AFTER = 3;

/** One quarantined plugin, as `.toolhost/quarantine.json` keeps it. */
export interface QuarantineRecord {
  /** What was loaded when it was quarantined: bundle, limits and config (see `PluginLoad.fingerprint`). */
  readonly fingerprint: string;
  readonly crashes: number;
  /** ISO time the quarantine started. */
  readonly since: string;
  /** The last death charged to it. */
  readonly lastCrash: string;
}

interface FileShape {
  readonly version: 1;
  readonly plugins: Record<string, QuarantineRecord>;
}

/** The text a person reads about a quarantined plugin: what happened and how to clear it. */
function quarantineMessage(pluginId: string, record: QuarantineRecord): string {
  return (
    `plugin "${pluginId}" is quarantined: it crashed the executor process ${record.crashes} times ` +
    `(last: ${record.lastCrash}); it runs again once plugins/${pluginId}/ or its settings change, ` +
    'or after a reload'
  );
}

function isRecord(value: unknown): value is QuarantineRecord {
  const r = value as Partial<QuarantineRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.fingerprint === 'string' &&
    typeof r.crashes === 'number' &&
    typeof r.since === 'string' &&
    typeof r.lastCrash === 'string'
  );
}

/**
 * Plugins that kept crashing the executor process. A plugin is quarantined after
 * {@link QUARANTINE_AFTER} deaths charged to it while it is loaded the same way; its tools are
 * then hidden with `quarantined` and its hooks no longer run. The quarantine is written to a
 * file, so that a restarted host (and `toolhost list`, `toolhost doctor`) still knows, and it is
 * lifted when the plugin changes (a new bundle, other limits or config) or by an explicit reload.
 */
export class Quarantine {
  readonly #file: string | undefined;
  #records = new Map<string, QuarantineRecord>();
  /** Deaths so far of plugins not quarantined yet, with the fingerprint they were charged to. */
  readonly #crashes = new Map<string, { fingerprint: string; count: number }>();
  #opened: Promise<void> | undefined;

  /** `file`: where quarantines persist; without one they last as long as this object. */
  constructor(file: string | undefined) {
    this.#file = file;
  }

  /** Reads the file once; entries it cannot understand are ignored. */
  open(): Promise<void> {
    this.#opened ??= (async () => {
      if (this.#file === undefined) return;
      const data = readJson<Partial<FileShape>>(this.#file);
      const plugins = data?.version === 1 && typeof data.plugins === 'object' ? data.plugins : {};
      for (const [id, record] of Object.entries(plugins ?? {}))
        if (isRecord(record)) this.#records.set(id, record);
    })();
    return this.#opened;
  }

  /** Why `pluginId`, loaded as `fingerprint`, may not run; undefined when it may. */
  reason(pluginId: string, fingerprint: string | undefined): string | undefined {
    const record = this.#records.get(pluginId);
    if (record === undefined || record.fingerprint !== fingerprint) return undefined;
    return quarantineMessage(pluginId, record);
  }

  /** The quarantined plugins and their records. */
  records(): ReadonlyMap<string, QuarantineRecord> {
    return this.#records;
  }

  /** Charges one death to `pluginId` loaded as `fingerprint`; true when that starts its quarantine. */
  recordCrash(pluginId: string, fingerprint: string, message: string): boolean {
    if (this.#records.get(pluginId)?.fingerprint === fingerprint) return false;
    const previous = this.#crashes.get(pluginId);
    const count = previous?.fingerprint === fingerprint ? previous.count + 1 : 1;
    if (count < QUARANTINE_AFTER) {
      this.#crashes.set(pluginId, { fingerprint, count });
      return false;
    }
    this.#crashes.delete(pluginId);
    this.#records.set(pluginId, {
      fingerprint,
      crashes: count,
      since: new Date().toISOString(),
      lastCrash: message,
    });
    this.#save();
    return true;
  }

  /**
   * After a reload: lifts the quarantine (and forgets the deaths) of every plugin that is gone or
   * now loads with another fingerprint — or of every plugin with `all`. Returns the lifted ids.
   */
  lift(loads: readonly PluginLoad[], all: boolean): string[] {
    const now = new Map(loads.map((load) => [load.report.id, load.fingerprint]));
    const changed = (id: string, fingerprint: string) =>
      all || !now.has(id) || (now.get(id) !== undefined && now.get(id) !== fingerprint);
    for (const [id, crashes] of this.#crashes) if (changed(id, crashes.fingerprint)) this.#crashes.delete(id);
    const lifted = [...this.#records].filter(([id, r]) => changed(id, r.fingerprint)).map(([id]) => id);
    for (const id of lifted) this.#records.delete(id);
    if (lifted.length > 0) this.#save();
    return lifted;
  }

  /**
   * The loads as the registry should see them: a quarantined plugin's tools hidden with
   * `quarantined`, its hooks dropped, its status `quarantined`. Its lease is kept: calls admitted
   * before the quarantine still hold its version.
   */
  apply(loads: readonly PluginLoad[]): PluginLoad[] {
    return loads.map((load) => {
      if (load.report.status !== 'loaded') return load;
      const message = this.reason(load.report.id, load.fingerprint);
      if (message === undefined) return load;
      const { hooks: _dropped, ...rest } = load;
      const hidden = hiddenLoad(load.report.id, 'quarantined', message, load.report.manifest?.tools);
      return { ...rest, source: hidden.source, report: { ...load.report, ...hidden.report } };
    });
  }

  /** Writes the records at once (`writeAtomic` is synchronous); a failed write only loses persistence. */
  #save(): void {
    const file = this.#file;
    if (file === undefined) return;
    const data: FileShape = { version: 1, plugins: Object.fromEntries(this.#records) };
    try {
      writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
    } catch {
      // A read-only project: the quarantine still holds in this process.
    }
  }
}
