import { describe, expect, it } from 'vitest';
import { formatExecutor, formatOwner, placeholderDescriptor } from '../../src/core/refs.js';

describe('formatOwner and formatExecutor', () => {
  it('render refs for people as kind:id[:tool]', () => {
    expect(formatOwner({ kind: 'plugin', pluginId: 'weather' })).toBe('plugin:weather');
    expect(formatOwner({ kind: 'custom' })).toBe('custom');
    expect(formatExecutor({ kind: 'mcp', serverId: 'github', toolName: 'search' })).toBe('mcp:github:search');
  });
});

describe('placeholderDescriptor', () => {
  it('stands for a source whose tools are unknown: named for its owner, with no executor', () => {
    expect(placeholderDescriptor({ kind: 'plugin', pluginId: 'weather' }, 'failed to load')).toEqual({
      name: 'plugin:weather',
      description: 'failed to load',
      inputSchema: { type: 'object' },
      owner: { kind: 'plugin', pluginId: 'weather' },
    });
    expect(placeholderDescriptor({ kind: 'mcp', serverId: 'github' }, 'not connected')).toMatchObject({
      name: 'mcp:github',
    });
  });
});
