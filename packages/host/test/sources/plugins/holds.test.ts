import { describe, expect, it } from 'vitest';
import { LeaseCounts } from '../../../src/sources/plugins/holds.js';
import type { PluginLease } from '../../../src/sources/plugins/types.js';

function lease(name: string, released: string[]): PluginLease {
  return { pluginId: name, version: 1, release: () => released.push(name) };
}

describe('Map holds on plugin leases', () => {
  it('releases a replaced Map’s leases only after its last admitted call ends', () => {
    const released: string[] = [];
    const counts = new LeaseCounts();
    const first = counts.hold([{ lease: lease('a', released) }, {}]);
    first.enter();
    first.enter();
    first.replaced();
    first.exit();
    expect(released).toEqual([]);
    first.exit();
    expect(released).toEqual(['a']);
  });

  it('keeps a lease that a newer Map still holds', () => {
    const released: string[] = [];
    const counts = new LeaseCounts();
    const shared = lease('shared', released);
    const old = lease('old', released);
    const first = counts.hold([{ lease: shared }, { lease: old }]);
    const second = counts.hold([{ lease: shared }]);
    first.replaced();
    expect(released).toEqual(['old']);
    second.replaced();
    expect(released).toEqual(['old', 'shared']);
  });

  it('never releases the current Map’s leases, however many calls end', () => {
    const released: string[] = [];
    const hold = new LeaseCounts().hold([{ lease: lease('a', released) }]);
    hold.enter();
    hold.exit();
    expect(released).toEqual([]);
  });
});
