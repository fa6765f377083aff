import type { MapHold } from '../../types.js';
import type { PluginLease } from './types.js';

/**
 * What one Map holds of the plugins: the leases of the plugin versions its tools call. A call the
 * Map admitted runs on those versions even when a plugin is disabled, removed or replaced at the
 * same moment: the leases are released only once the Map has been replaced *and* the last call it
 * admitted has ended. A lease shared by several Maps (a plugin that did not change) is released
 * when the last of them lets go.
 */
export class LeaseHold implements MapHold {
  readonly #owner: LeaseCounts;
  readonly #leases: readonly PluginLease[];
  #calls = 0;
  #replaced = false;
  #released = false;

  constructor(owner: LeaseCounts, leases: readonly PluginLease[]) {
    this.#owner = owner;
    this.#leases = leases;
    owner.retain(leases);
  }

  /** A call admitted by this Map starts. Pair with {@link exit}. */
  enter(): void {
    this.#calls += 1;
  }

  /** A call admitted by this Map has ended. */
  exit(): void {
    this.#calls -= 1;
    this.#releaseIfDone();
  }

  /** Another Map took this one's place: it admits no more calls. */
  replaced(): void {
    this.#replaced = true;
    this.#releaseIfDone();
  }

  #releaseIfDone(): void {
    if (!this.#replaced || this.#calls > 0 || this.#released) return;
    this.#released = true;
    this.#owner.release(this.#leases);
  }
}

/** How many Maps hold each lease; a lease goes when none does. */
export class LeaseCounts {
  readonly #counts = new Map<PluginLease, number>();

  /** A hold, for a new Map, on the leases of `leases` (entries without one are skipped). */
  hold(loads: readonly { readonly lease?: PluginLease }[]): LeaseHold {
    const leases: PluginLease[] = [];
    for (const load of loads) if (load.lease !== undefined) leases.push(load.lease);
    return new LeaseHold(this, leases);
  }

  retain(leases: readonly PluginLease[]): void {
    for (const lease of leases) this.#counts.set(lease, (this.#counts.get(lease) ?? 0) + 1);
  }

  release(leases: readonly PluginLease[]): void {
    for (const lease of leases) {
      const count = (this.#counts.get(lease) ?? 0) - 1;
      if (count > 0) {
        this.#counts.set(lease, count);
        continue;
      }
      this.#counts.delete(lease);
      lease.release();
    }
  }
}
