import { describe, expect, it } from 'vitest';
import { unavailableEntries } from '../../../src/core/register/unavailable.js';

const diagnostic = { reason: 'mcp-unavailable' as const, message: 'down' };

describe('unavailableEntries: how every source says what it cannot offer', () => {
  it('is one placeholder named mcp:<server> when no tool of a server is known', () => {
    expect(unavailableEntries({ kind: 'mcp', serverId: 'srv' }, [], diagnostic)).toEqual([
      {
        descriptor: {
          name: 'mcp:srv',
          description: 'down',
          inputSchema: { type: 'object' },
          owner: { kind: 'mcp', serverId: 'srv' },
        },
        diagnostics: [diagnostic],
      },
    ]);
  });

  it('is one placeholder named plugin:<id> for a plugin, with its own reason', () => {
    const entries = unavailableEntries({ kind: 'plugin', pluginId: 'notes' }, [], {
      reason: 'plugin-load-failed',
      message: 'does not build',
    });
    expect(entries.map((e) => [e.descriptor.name, e.diagnostics[0]?.reason])).toEqual([
      ['plugin:notes', 'plugin-load-failed'],
    ]);
  });

  it('lists each known tool, hidden with the diagnostic, when the tools are known', () => {
    const known = ['a', 'b'].map((name) => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
      owner: { kind: 'mcp' as const, serverId: 'srv' },
    }));
    const entries = unavailableEntries({ kind: 'mcp', serverId: 'srv' }, known, diagnostic);
    expect(entries).toEqual(known.map((descriptor) => ({ descriptor, diagnostics: [diagnostic] })));
  });
});
