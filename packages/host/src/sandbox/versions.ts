import type { SandboxLimits } from './types.js';

/** One version of a plugin's code in a sandbox, and how many holds keep it loaded. */
export interface PluginVersion {
  readonly pluginId: string;
  readonly version: number;
  /** `<pluginId>@<version>`: how the isolate pool names it. */
  readonly key: string;
  readonly bundle: string;
  readonly limits: SandboxLimits;
  holds: number;
}

function sameLimits(a: SandboxLimits, b: SandboxLimits): boolean {
  return (
    a.memoryMb === b.memoryMb &&
    a.timeoutMs === b.timeoutMs &&
    a.cpuMs === b.cpuMs &&
    a.maxResultChars === b.maxResultChars
  );
}

/**
 * The plugin versions a sandbox holds, counted by holds. Both sandboxes use it, so `inline` and
 * `process` agree on when a version exists: from the first `load` of its code until its last
 * hold is let go.
 */
export class PluginVersions {
  #next = 1;
  readonly #live = new Map<string, PluginVersion>();
  /** The version a `load` of unchanged code joins, per plugin. */
  readonly #newest = new Map<string, PluginVersion>();

  /** A hold on `bundle` for `pluginId`; `created` when it is a new version to load. */
  acquire(
    pluginId: string,
    bundle: string,
    limits: SandboxLimits,
  ): { readonly entry: PluginVersion; readonly created: boolean } {
    const newest = this.#newest.get(pluginId);
    if (newest !== undefined && newest.bundle === bundle && sameLimits(newest.limits, limits)) {
      newest.holds += 1;
      return { entry: newest, created: false };
    }
    const version = this.#next++;
    const entry: PluginVersion = {
      pluginId,
      version,
      key: versionKey(pluginId, version),
      bundle,
      limits: { ...limits },
      holds: 1,
    };
    this.#live.set(entry.key, entry);
    this.#newest.set(pluginId, entry);
    return { entry, created: true };
  }

  /** Lets go of one hold; returns the version when that was its last hold (it is gone now). */
  release(pluginId: string, version: number): PluginVersion | undefined {
    const entry = this.#live.get(versionKey(pluginId, version));
    if (entry === undefined) return undefined;
    entry.holds -= 1;
    if (entry.holds > 0) return undefined;
    this.#live.delete(entry.key);
    if (this.#newest.get(pluginId) === entry) this.#newest.delete(pluginId);
    return entry;
  }

  /** Every version held now, oldest first. */
  live(): IterableIterator<PluginVersion> {
    return this.#live.values();
  }
}

/** How the isolate pool names a version. */
export function versionKey(pluginId: string, version: number): string {
  return `${pluginId}@${version}`;
}
