import type { HostSnapshot } from '../core/dispatch/session.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Registry } from '../types.js';

/**
 * A host's plumbing, for this repository's own code (serve/, the CLI) and tests, through
 * `@toolhost/host/internal`: none of it is part of `ToolHost`'s public API, and any of it may
 * change in any release.
 */
export interface HostInternals {
  /** The current state; sessions read it at the start of each call. */
  snapshot(): HostSnapshot;
  /** The Map in force (the snapshot's). */
  readonly registry: Registry;
  /** The sandbox plugin code and code-mode scripts run in, once made. */
  readonly sandbox: Sandbox | undefined;
  /**
   * Charges a death of a process that ran `pluginId` inline to the version loaded now (for the
   * `serve` supervisor, which restarts that process); true when it starts a quarantine.
   */
  chargePluginCrash(pluginId: string, message: string): boolean;
}

/** What a host hands over when it is made. */
export interface InternalParts {
  readonly snapshot: () => HostSnapshot;
  readonly sandbox: () => Sandbox | undefined;
  readonly chargePluginCrash: (pluginId: string, message: string) => boolean;
}

const parts = new WeakMap<object, HostInternals>();

/** Called once by each host's constructor. */
export function registerInternals(host: object, given: InternalParts): void {
  parts.set(host, {
    snapshot: given.snapshot,
    get registry() {
      return given.snapshot().registry;
    },
    get sandbox() {
      return given.sandbox();
    },
    chargePluginCrash: given.chargePluginCrash,
  });
}

/** The plumbing of `host` (a `ToolHost`); throws for anything else. */
export function internalsOf(host: object): HostInternals {
  const found = parts.get(host);
  if (found === undefined) throw new TypeError('internalsOf: not a ToolHost made by createHost');
  return found;
}
