import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ISOLATE_SETTINGS } from '../../../src/config/isolates.js';
import { resolveLimits } from '../../../src/config/limits.js';
import { InlineSandbox } from '../../../src/sandbox/inline.js';
import { PluginSource } from '../../../src/sources/plugins/source.js';
import { pluginSource } from './plugin-fixtures.js';

describe('the plugin source', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('offers the plugins that are ready, then says it changed when a straggler lands', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-plugin-source-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    for (const [id, before] of [
      ['good', ''],
      ['spins', 'for (;;) {}'],
    ] as const) {
      await mkdir(path.join(root, 'plugins', id), { recursive: true });
      await writeFile(path.join(root, 'plugins', id, 'index.ts'), pluginSource(id, before));
    }
    const sandbox = new InlineSandbox();
    cleanups.push(() => sandbox.close());
    const source = new PluginSource({
      root,
      sandbox: () => sandbox,
      dir: path.join(root, 'plugins'),
      cache: false,
      settings: () => ({
        plugins: { spins: { limits: { timeoutMs: 2_000 } } },
        limits: resolveLimits(undefined),
        env: {},
        isolates: DEFAULT_ISOLATE_SETTINGS,
      }),
      pacing: { graceMs: 50 },
    });
    cleanups.push(() => source.close());
    const changed = new Promise<string>((resolve) => source.onChange(resolve));

    expect(await source.refresh({ kind: 'start' })).toBe(true);
    const status = () => Object.fromEntries(source.reports.map((r) => [r.id, r.status]));
    expect(status()).toEqual({ good: 'loaded', spins: 'loading' });
    expect(source.contributions().flatMap((c) => c.tools.map((t) => t.descriptor.name))).toEqual([
      'good_tool',
    ]);

    expect(await changed).toBe('plugin:spins');
    expect(status()).toEqual({ good: 'loaded', spins: 'failed' });
  });
});
