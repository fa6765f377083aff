import type { ToolHost } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { textOf, useHosts } from './project.js';

const hiddenOf = (host: ToolHost, pluginId: string) =>
  host
    .plan()
    .hidden.filter((h) => h.descriptor.owner.kind === 'plugin' && h.descriptor.owner.pluginId === pluginId);

describe('plugins at and over the size limits', () => {
  const h = useHosts();

  it('refuses a plugin of 257 tools with an error naming the limit and the count; others load', async () => {
    const made = await h.project(['too-many-tools', 'healthy']);
    const host = await h.hostFor(made.root);
    const report = host.plugins.find((p) => p.id === 'too-many-tools');
    expect(report?.status).toBe('failed');
    expect(report?.diagnostics).toEqual([
      'plugin "too-many-tools" failed to load: Plugin "too-many-tools" declares 257 tools; a plugin may ' +
        'declare at most 256 (MAX_TOOLS_PER_PLUGIN): split it into several plugins',
    ]);
    const hidden = hiddenOf(host, 'too-many-tools');
    expect(hidden.map((h) => [h.descriptor.name, h.diagnostics[0]?.reason])).toEqual([
      ['plugin:too-many-tools', 'plugin-load-failed'],
    ]);
    expect(textOf((await host.session().call('healthy_echo', { text: 'ok' })).result)).toBe('echo: ok');
  });

  it('refuses a plugin with a description over the limit, naming the tool, the length and the limit', async () => {
    const made = await h.project(['long-description']);
    const host = await h.hostFor(made.root);
    expect(host.plugins[0]?.diagnostics).toEqual([
      'plugin "long-description" failed to load: Tool "long_winded" has a description of 10001 ' +
        'characters; the limit is 10000 (MAX_DESCRIPTION_CHARS): shorten it',
    ]);
    expect(hiddenOf(host, 'long-description')[0]?.diagnostics[0]?.reason).toBe('plugin-load-failed');
  });

  it('loads a plugin of exactly 256 tools, each with a description of exactly the limit', async () => {
    const made = await h.project(['most-tools']);
    const host = await h.hostFor(made.root);
    expect(host.plugins[0]?.status).toBe('loaded');
    expect(host.plan().visible).toHaveLength(256);
    expect(textOf((await host.session().call('most_255', {})).result)).toBe('255');
  });
});
