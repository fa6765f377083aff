import { access, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { textOf, useHosts } from './project.js';

const pluginHidden = (host: ToolHost) =>
  host.plan().hidden.filter((h) => h.descriptor.owner.kind === 'plugin');

const broken = {
  'syntax-error': /does not build: .*index\.ts:3:\d+: /,
  'throws-at-load': /failed to load: .*boom at load/,
  'no-default-export': /no default export: write `export default definePlugin/,
  // An empty (or half-saved) entry builds: it is the describe that says what is missing.
  'empty-entry':
    /failed to load: the plugin's entry exports no definePlugin\(\{ id, tools: \[\.\.\.\] \}\) as its default \(an empty or half-saved index\.ts/,
  'duplicate-tool': /declares the tool "dup_twin" twice/,
  'invalid-schema': /input must be a zod object schema/,
  'node-builtin': /Node built-in "node:fs" is not available to plugins: use ctx\.fs/,
  'missing-module': /does not build: .*index\.ts:3:\d+: Could not resolve "left-pad-that-does-not-exist"/,
  'id-mismatch': /plugins\/id-mismatch\/ declares id "someone-else"; the id must match the folder name/,
  'reads-host':
    /does not build: index\.ts:4:\d+: import "\/proc\/self\/environ" with \{ type: "text" \} is refused: it is outside the plugin folder/,
} as const;

describe('loading plugins', () => {
  const h = useHosts();

  it('reports every broken fixture with its diagnostic while a healthy plugin beside them works', async () => {
    const made = await h.project(['healthy', ...Object.keys(broken)]);
    const host = await h.hostFor(made.root);

    for (const [id, pattern] of Object.entries(broken)) {
      const report = host.plugins.find((p) => p.id === id);
      expect(report?.status, id).toBe('failed');
      expect(report?.diagnostics.join('\n'), id).toMatch(pattern);
      const hidden = host
        .plan()
        .hidden.filter((h) => h.descriptor.owner.kind === 'plugin' && h.descriptor.owner.pluginId === id);
      expect(hidden.length, id).toBeGreaterThan(0);
      expect(
        hidden.every((h) => h.diagnostics[0]?.reason === 'plugin-load-failed'),
        id,
      ).toBe(true);
    }
    expect(host.plugins.find((p) => p.id === 'healthy')?.status).toBe('loaded');
    const outcome = await host.session().call('healthy_echo', { text: 'still here' });
    expect(textOf(outcome.result)).toBe('echo: still here');
  });

  it('lists one hidden entry per declared tool when the names can be read', async () => {
    const made = await h.project(['id-mismatch']);
    const host = await h.hostFor(made.root);
    expect(pluginHidden(host).map((h) => h.descriptor.name)).toEqual(['mismatch_tool']);
  });

  it('lets a plugin tool replace a built-in of the same name when plugins.<id>.overrides names it, and says so', async () => {
    const made = await h.project(['clashes-builtin']);
    const host = await h.hostFor(made.root, {
      builtins: {},
      plugins: { 'clashes-builtin': { overrides: ['read'] } },
    });
    expect(internalsOf(host).registry.tools.get('read')?.source).toBe('plugin');
    expect(internalsOf(host).registry.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'tool-overridden',
        toolName: 'read',
        message: expect.stringContaining('plugin:clashes-builtin'),
      }),
    );
    expect(textOf((await host.session().call('read', { path: 'x' })).result)).toBe('plugin read of x');
  });

  it('reads descriptors without running any executor', async () => {
    const made = await h.project(['side-effect']);
    await mkdir(path.join(made.root, 'out'));
    const host = await h.hostFor(made.root, {
      plugins: { 'side-effect': { grants: { fs: { write: ['out'] } } } },
    });
    const marker = path.join(made.root, 'out', 'marker.txt');
    expect(host.plan().visible.map((v) => v.descriptor.name)).toEqual(['mark']);
    await expect(access(marker)).rejects.toThrow();
    expect(textOf((await host.session().call('mark', {})).result)).toBe('marked');
    await expect(access(marker)).resolves.toBeUndefined();
  });

  it('validates input against the plugin schema before anything runs', async () => {
    const made = await h.project(['healthy']);
    const host = await h.hostFor(made.root);
    const outcome = await host.session().call('healthy_echo', { text: 42 });
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome.result)).toMatch(
      /^Invalid input for tool "healthy_echo": at "text": .*expected string/,
    );
  });

  it('hides a disabled plugin with plugin-disabled', async () => {
    const made = await h.project(['healthy']);
    const host = await h.hostFor(made.root, { plugins: { healthy: { enabled: false } } });
    expect(host.plugins[0]?.status).toBe('disabled');
    expect(pluginHidden(host)[0]?.diagnostics[0]).toMatchObject({
      reason: 'plugin-disabled',
      message: expect.stringContaining('plugins.healthy.enabled'),
    });
  });

  it('reuses the on-disk cache on the next start', async () => {
    const made = await h.project(['healthy']);
    const first = await h.hostFor(made.root, { cache: true });
    await first.close();
    await access(path.join(made.root, '.toolhost', 'cache', 'bundles', 'healthy.json'));
    const host = await h.hostFor(made.root, { cache: true });
    expect(textOf((await host.session().call('healthy_echo', { text: 'cached' })).result)).toBe(
      'echo: cached',
    );
  });
});
