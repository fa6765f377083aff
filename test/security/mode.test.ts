import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { HEALTHY_SOURCE, SECURITY_SANDBOX, useHarness } from './helpers.js';

describe('the security suite’s sandbox', () => {
  const h = useHarness();

  it('holds the plugins in the sandbox this run names (inline, then process in the second run)', async () => {
    const { host } = await h.start({ plugins: { healthy: HEALTHY_SOURCE } });
    expect(internalsOf(host).sandbox?.mode).toBe(SECURITY_SANDBOX);
    expect(SECURITY_SANDBOX).toBe(process.env.TOOLHOST_SECURITY_SANDBOX === 'process' ? 'process' : 'inline');
  });
});
