import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/sandbox/types.js';
import { PluginVersions } from '../../src/sandbox/versions.js';

describe('PluginVersions', () => {
  it('joins the newest version for unchanged code and limits, and counts its holds', () => {
    const versions = new PluginVersions();
    const a = versions.acquire('p', 'code', DEFAULT_SANDBOX_LIMITS);
    const b = versions.acquire('p', 'code', { ...DEFAULT_SANDBOX_LIMITS });
    expect(a.created).toBe(true);
    expect(b).toEqual({ entry: a.entry, created: false });
    expect(versions.release('p', a.entry.version)).toBeUndefined();
    expect(versions.release('p', a.entry.version)).toBe(a.entry);
    expect([...versions.live()]).toEqual([]);
  });

  it('keeps an older version alive beside a newer one until its own holds go', () => {
    const versions = new PluginVersions();
    const v1 = versions.acquire('p', 'one', DEFAULT_SANDBOX_LIMITS).entry;
    const v2 = versions.acquire('p', 'two', DEFAULT_SANDBOX_LIMITS).entry;
    const v3 = versions.acquire('p', 'two', { ...DEFAULT_SANDBOX_LIMITS, memoryMb: 128 }).entry;
    expect(new Set([v1.version, v2.version, v3.version]).size).toBe(3);
    expect([...versions.live()].map((v) => v.key)).toEqual([v1.key, v2.key, v3.key]);
    expect(versions.release('p', v1.version)).toBe(v1);
    // Code equal to a version that is not the newest makes a new version.
    expect(versions.acquire('p', 'two', DEFAULT_SANDBOX_LIMITS).created).toBe(true);
  });

  it('ignores a release of a version it does not hold', () => {
    expect(new PluginVersions().release('p', 7)).toBeUndefined();
  });
});
