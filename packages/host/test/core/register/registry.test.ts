import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../../src/core/register/registry.js';
import type { RegisteredTool } from '../../../src/types.js';
import { fakeTool, source } from '../../helpers.js';

describe('buildRegistry', () => {
  it('merges built-in → plugin → mcp → custom whatever order the sources arrive in', () => {
    const registry = buildRegistry(
      [
        source('custom', 'custom', [fakeTool('x', 'custom')]),
        source('mcp', 'srv', [fakeTool('x', 'mcp', 'srv')]),
        source('plugin', 'p', [fakeTool('x', 'plugin', 'p')]),
      ],
      {},
    );
    expect(registry.tools.get('x')?.source).toBe('custom');
    const losers = registry.excluded.map((e) => e.descriptor.owner.kind);
    expect(losers).toEqual(['plugin', 'mcp']);
  });

  it('reports every override with winner and loser, never silently', () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read')]),
        source('custom', 'custom', [fakeTool('read', 'custom')]),
      ],
      {},
    );
    expect(registry.tools.get('read')?.source).toBe('custom');
    const warning = registry.diagnostics.find((d) => d.code === 'tool-overridden');
    expect(warning).toMatchObject({ level: 'warning', toolName: 'read' });
    expect(warning?.message).toContain('custom');
    expect(warning?.message).toContain('core');
    expect(registry.excluded).toEqual([
      {
        descriptor: expect.objectContaining({ owner: { kind: 'core' } }),
        diagnostics: [expect.objectContaining({ reason: 'overridden' })],
      },
    ]);
  });

  it("keeps a built-in's name for the built-in: a plugin or MCP tool of that name is hidden as override-refused", () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read'), fakeTool('write')]),
        source('plugin', 'evil', [fakeTool('read', 'plugin', 'evil')]),
        source('mcp', 'srv', [fakeTool('write', 'mcp', 'srv')]),
      ],
      {},
    );
    expect(registry.tools.get('read')?.source).toBe('builtin');
    expect(registry.tools.get('write')?.source).toBe('builtin');
    expect(registry.excluded.map((e) => [e.descriptor.name, e.descriptor.owner.kind, e.diagnostics])).toEqual(
      [
        [
          'read',
          'plugin',
          [
            {
              reason: 'override-refused',
              message:
                'tool "read" of plugin:evil is hidden: "read" is the name of a built-in tool, which keeps it; to let plugin "evil" replace the built-in, add "read" to plugins.evil.overrides',
            },
          ],
        ],
        ['write', 'mcp', [expect.objectContaining({ reason: 'override-refused' })]],
      ],
    );
    expect(registry.diagnostics).toContainEqual(
      expect.objectContaining({ level: 'warning', code: 'override-refused', toolName: 'read' }),
    );
    expect(registry.diagnostics.some((d) => d.code === 'tool-overridden')).toBe(false);
  });

  it("keeps a built-in's name even while policy keeps the built-in out", () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read')]),
        source('plugin', 'evil', [fakeTool('read', 'plugin', 'evil')]),
      ],
      { builtins: false },
    );
    expect(registry.tools.has('read')).toBe(false);
    expect(registry.excluded.map((e) => [e.descriptor.owner.kind, e.diagnostics[0]?.reason])).toEqual([
      ['core', 'policy-denied'],
      ['plugin', 'override-refused'],
    ]);
  });

  it('lets a plugin replace exactly the built-ins plugins.<id>.overrides names, and says so', () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read'), fakeTool('write')]),
        source('plugin', 'files', [
          fakeTool('read', 'plugin', 'files'),
          fakeTool('write', 'plugin', 'files'),
        ]),
        source('plugin', 'other', [fakeTool('read', 'plugin', 'other')]),
      ],
      { overrides: { files: ['read'] } },
    );
    expect(registry.tools.get('read')?.sourceId).toBe('files');
    expect(registry.tools.get('write')?.source).toBe('builtin');
    expect(registry.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'tool-overridden', toolName: 'read' }),
    );
    const refused = registry.excluded.filter((e) => e.diagnostics[0]?.reason === 'override-refused');
    expect(refused.map((e) => [e.descriptor.name, e.descriptor.owner])).toEqual([
      ['write', { kind: 'plugin', pluginId: 'files' }],
      ['read', { kind: 'plugin', pluginId: 'other' }],
    ]);
  });

  it('gives no tool but its own a meta tool name (skill, tool_search, run_code, describe_tools), whatever the config', () => {
    const meta = ['skill', 'tool_search', 'run_code', 'describe_tools', 'call_tool'];
    const registry = buildRegistry(
      [
        source('builtin', 'code-mode', [fakeTool('run_code', 'builtin', 'code-mode')]),
        source('builtin', 'skills', [fakeTool('skill', 'builtin', 'skills')]),
        source('builtin', 'builtin', [fakeTool('tool_search')]),
        source(
          'plugin',
          'evil',
          meta.map((name) => fakeTool(name, 'plugin', 'evil')),
        ),
        source('custom', 'custom', [fakeTool('describe_tools', 'custom'), fakeTool('skill', 'custom')]),
      ],
      { overrides: { evil: meta } },
    );
    expect(registry.tools.get('run_code')?.sourceId).toBe('code-mode');
    expect(registry.tools.get('skill')?.sourceId).toBe('skills');
    expect([...registry.tools.keys()].sort()).toEqual(['run_code', 'skill']);
    const refused = registry.excluded.map((e) => [e.descriptor.name, e.descriptor.owner.kind]);
    expect(refused).toEqual([
      ['tool_search', 'core'],
      ...meta.map((name) => [name, 'plugin']),
      ['describe_tools', 'custom'],
      ['skill', 'custom'],
    ]);
    for (const entry of registry.excluded) expect(entry.diagnostics[0]?.reason).toBe('override-refused');
    expect(registry.excluded[1]?.diagnostics[0]?.message).toBe(
      'tool "skill" of plugin:evil is hidden: "skill" is the name of a toolhost meta tool, which no other tool may take whatever the config; rename the tool',
    );
    expect(registry.diagnostics).toContainEqual(
      expect.objectContaining({
        level: 'warning',
        code: 'override-refused',
        message: expect.stringContaining('plugins.evil.overrides names "skill", a meta tool'),
      }),
    );
  });

  it("lets a custom tool (the embedder's own code) replace a built-in, but never a meta tool", () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read')]),
        source('builtin', 'code-mode', [fakeTool('run_code', 'builtin', 'code-mode')]),
        source('custom', 'custom', [fakeTool('read', 'custom'), fakeTool('run_code', 'custom')]),
      ],
      {},
    );
    expect(registry.tools.get('read')?.source).toBe('custom');
    expect(registry.tools.get('run_code')?.sourceId).toBe('code-mode');
  });

  it('keeps a tool whose name breaks the one name rule out of the Map, whatever its source', () => {
    const bad = ['has space', 'dotted.name', 'x'.repeat(65), '', 'ünï'];
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool(bad[0] as string)]),
        source('plugin', 'p', [fakeTool(bad[1] as string, 'plugin', 'p')]),
        source('mcp', 'srv', [
          fakeTool(bad[2] as string, 'mcp', 'srv'),
          fakeTool('fine-name_1', 'mcp', 'srv'),
        ]),
        source('custom', 'custom', [
          fakeTool(bad[3] as string, 'custom'),
          fakeTool(bad[4] as string, 'custom'),
        ]),
      ],
      {},
    );
    expect([...registry.tools.keys()]).toEqual(['fine-name_1']);
    expect(registry.excluded.map((e) => [e.descriptor.name, e.diagnostics[0]?.reason])).toEqual(
      bad.map((name) => [name, 'invalid-name']),
    );
    const warnings = registry.diagnostics.filter((d) => d.code === 'invalid-tool-name');
    expect(warnings).toHaveLength(bad.length);
    expect(warnings[1]?.message).toBe(
      'tool name "dotted.name" of plugin:p is not a valid tool name (1-64 letters, digits, "_" or "-"); it stays hidden until renamed',
    );
  });

  it('keeps denied tools out of the Map and records them as policy-denied', () => {
    const registry = buildRegistry([source('builtin', 'builtin', [fakeTool('read'), fakeTool('exec')])], {
      deny: ['exec'],
    });
    expect([...registry.tools.keys()]).toEqual(['read']);
    expect(registry.excluded[0]?.descriptor.name).toBe('exec');
    expect(registry.excluded[0]?.diagnostics[0]).toMatchObject({ reason: 'policy-denied' });
  });

  it('does not let a denied tool override an allowed one', () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read')]),
        source('plugin', 'evil', [fakeTool('read', 'plugin', 'evil')]),
      ],
      { deny: ['group:plugin:evil'] },
    );
    expect(registry.tools.get('read')?.source).toBe('builtin');
    expect(registry.diagnostics.some((d) => d.code === 'tool-overridden')).toBe(false);
  });

  it('builds a fresh Map every time', () => {
    const sources = [source('builtin', 'builtin', [fakeTool('a')])];
    const first = buildRegistry(sources, {});
    const second = buildRegistry(sources, {});
    expect(second.tools).not.toBe(first.tools);
    expect([...second.tools.keys()]).toEqual([...first.tools.keys()]);
  });

  it('warns at registration about unsupported availability', () => {
    const tool = fakeTool('odd');
    const odd = { ...tool, descriptor: { ...tool.descriptor, availability: { anyOf: [] } } };
    const registry = buildRegistry([source('builtin', 'builtin', [odd])], {});
    expect(registry.diagnostics).toContainEqual(
      expect.objectContaining({ level: 'warning', code: 'unsupported-availability', toolName: 'odd' }),
    );
  });

  it('warns when an allow list shuts a whole source out, and about patterns that match nothing', () => {
    const registry = buildRegistry(
      [
        source('builtin', 'builtin', [fakeTool('read', 'builtin', 'builtin', { groups: ['fs'] })]),
        source('plugin', 'notes', [fakeTool('note_add', 'plugin', 'notes')]),
      ],
      { allow: ['group:fs', 'raed'], deny: ['nothing_*'] },
    );
    const messages = registry.diagnostics.filter((d) => d.level === 'warning').map((d) => d.message);
    expect(messages).toContainEqual(expect.stringContaining('plugin "notes"'));
    expect(messages).toContainEqual(expect.stringContaining('tools.allow pattern "raed" matches no tool'));
    expect(messages).toContainEqual(
      expect.stringContaining('tools.deny pattern "nothing_*" matches no tool'),
    );
  });

  it("gives a descriptor that lacks (or misstates) its executor ref the tool's real one", () => {
    const tool = fakeTool('bare', 'plugin', 'p');
    const { executor: _dropped, ...descriptor } = tool.descriptor;
    const registry = buildRegistry([source('plugin', 'p', [{ ...tool, descriptor }])], {});
    expect(registry.tools.get('bare')?.descriptor.executor).toEqual(tool.executor.ref);
  });

  it('passes on the unavailable tools a source reports', () => {
    const registry = buildRegistry(
      [
        {
          kind: 'plugin',
          id: 'broken',
          tools: [],
          unavailable: [
            {
              descriptor: fakeTool('b', 'plugin', 'broken').descriptor,
              diagnostics: [{ reason: 'plugin-load-failed', message: 'SyntaxError' }],
            },
          ],
        },
      ],
      {},
    );
    expect(registry.tools.size).toBe(0);
    expect(registry.excluded[0]?.diagnostics[0]?.reason).toBe('plugin-load-failed');
  });

  describe('a channel contribution, merged last like every source', () => {
    function channelTool(name: string): RegisteredTool {
      const tool = fakeTool(name, 'channel', 'slack:C1');
      return {
        ...tool,
        descriptor: { ...tool.descriptor, owner: { kind: 'channel', channelId: 'slack:C1' } },
      };
    }

    it("takes a built-in's name only when its own overrides name it, and says so where they are set", () => {
      const sources = (names: readonly string[]) => [
        source('builtin', 'builtin', [fakeTool('ls'), fakeTool('read')]),
        {
          ...source('channel', 'slack:C1', [channelTool('ls'), channelTool('read')]),
          overrides: { key: 'channel.overrides', names },
        },
      ];
      const registry = buildRegistry(sources(['ls', 'typo']), {});
      expect(registry.tools.get('ls')?.source).toBe('channel');
      expect(registry.tools.get('read')?.source).toBe('builtin');
      expect(registry.excluded.find((e) => e.descriptor.name === 'ls')?.diagnostics[0]?.message).toBe(
        '"ls" of channel:slack:C1 replaces "ls" of core in this channel\'s sessions (channel tools come last: built-in → plugin → mcp → custom → channel)',
      );
      expect(registry.diagnostics).toContainEqual({
        level: 'warning',
        code: 'override-matches-nothing',
        toolName: 'typo',
        message: 'channel.overrides names "typo", which no built-in tool of this host has (a typo?)',
      });
    });

    it('a withheld tool keeps its name: it stays out with its reason, and the tool it replaced stays replaced', () => {
      const withheld = new Map([['kick', { reason: 'owner-only' as const, message: 'for the owner only' }]]);
      const registry = buildRegistry(
        [
          source('custom', 'custom', [fakeTool('kick', 'custom')]),
          { ...source('channel', 'slack:C1', [channelTool('kick')]), withheld },
        ],
        {},
      );
      expect(registry.tools.has('kick')).toBe(false);
      expect(registry.excluded.map((e) => [e.descriptor.owner.kind, e.diagnostics[0]?.reason])).toEqual([
        ['custom', 'overridden'],
        ['channel', 'owner-only'],
      ]);
    });
  });
});
