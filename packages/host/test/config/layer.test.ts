import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layerConfig } from '../../src/config/layer.js';
import { parseConfig } from '../../src/config/load.js';
import { sandboxSettingOf } from '../../src/config/sandbox.js';
import type { ToolhostConfig } from '../../src/config/schema.js';

const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) =>
  fc.record(shape, { requiredKeys: [] });
const names = fc.uniqueArray(fc.constantFrom('read', 'write', 'exec', 'a*', 'group:fs'), { maxLength: 3 });
const ids = fc.constantFrom('notes', 'weather', '__proto__', 'constructor');

/** Valid configs over every kind of key: records, unions, opaque values, arrays, scalars. */
const config: fc.Arbitrary<ToolhostConfig> = partial({
  builtins: fc.oneof(
    fc.boolean(),
    partial({
      maxReadBytes: fc.integer({ min: 1, max: 10_000 }),
      exec: partial({ enabled: fc.boolean(), allowedCommands: names }),
    }),
  ),
  tools: partial({ allow: names, deny: names }),
  sandbox: fc.oneof(
    fc.constantFrom('process' as const, 'inline' as const),
    fc.record(
      {
        mode: fc.constantFrom('process' as const, 'inline' as const),
        jail: fc.constantFrom('auto' as const, 'required' as const, 'off' as const),
      },
      { requiredKeys: [] },
    ),
  ),
  limits: partial({
    timeoutMs: fc.integer({ min: 1, max: 60_000 }),
    plugin: partial({ memoryMb: fc.integer({ min: 8, max: 512 }) }),
  }),
  plugins: fc.dictionary(
    ids,
    partial({
      enabled: fc.boolean(),
      config: fc.jsonValue({ maxDepth: 2 }),
      grants: partial({ net: names, env: names }),
    }),
    { maxKeys: 3 },
  ),
  mcpServers: fc.dictionary(
    fc.constantFrom('files', 'remote'),
    fc.oneof(
      partial({ command: fc.constant('node'), args: fc.array(fc.string(), { maxLength: 2 }) }).map((s) => ({
        command: 'node',
        ...s,
      })),
      fc.constant({ url: 'http://127.0.0.1:9/mcp' }),
    ),
    { maxKeys: 2 },
  ),
  signals: partial({
    auth: names,
    context: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
  }),
}).map((value) => {
  const outcome = parseConfig(value, 'generated');
  if (!outcome.ok) throw new Error(`the generator made an invalid config: ${JSON.stringify(outcome.issues)}`);
  return outcome.config;
});

describe('layerConfig: the code config over the file config', () => {
  it('gives either config alone back, and the same config in both places back too', () => {
    fc.assert(
      fc.property(config, (c) => {
        expect(layerConfig({}, c)).toEqual(c);
        expect(layerConfig(c, {})).toEqual(c);
        expect(layerConfig(c, c)).toEqual(c);
      }),
      { numRuns: 300 },
    );
  });

  it('always gives a valid config in which code wins every value it sets and deny lists add up', () => {
    fc.assert(
      fc.property(config, config, (file, code) => {
        const layered = layerConfig(file, code);
        expect(parseConfig(layered, 'layered').ok).toBe(true);
        const asObject = (c: ToolhostConfig) =>
          typeof c.sandbox === 'string' ? { mode: c.sandbox } : c.sandbox;
        expect(sandboxSettingOf(layered)).toEqual(
          sandboxSettingOf({ sandbox: { ...asObject(file), ...asObject(code) } }),
        );
        expect(layered.tools?.allow).toEqual(code.tools?.allow ?? file.tools?.allow);
        for (const name of [...(file.tools?.deny ?? []), ...(code.tools?.deny ?? [])]) {
          expect(layered.tools?.deny).toContain(name);
        }
        for (const [id, settings] of Object.entries(code.plugins ?? {})) {
          if (settings.config !== undefined) expect(layered.plugins?.[id]?.config).toEqual(settings.config);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('merges objects key by key, and replaces a plugin config or an MCP server whole', () => {
    const file: ToolhostConfig = {
      builtins: { maxReadBytes: 10, exec: { enabled: true } },
      plugins: {
        weather: { config: { units: 'metric', baseUrl: 'x' }, grants: { net: ['a.example'], env: ['KEY'] } },
        notes: { enabled: false },
      },
      mcpServers: { files: { command: 'node', args: ['server.js'] } },
    };
    const code: ToolhostConfig = {
      builtins: { exec: { allowedCommands: ['git'] } },
      plugins: { weather: { config: { units: 'imperial' }, grants: { net: ['b.example'] } } },
      mcpServers: { files: { url: 'http://127.0.0.1:9/mcp' } },
    };
    expect(layerConfig(file, code)).toEqual({
      builtins: { maxReadBytes: 10, exec: { enabled: true, allowedCommands: ['git'] } },
      plugins: {
        weather: { config: { units: 'imperial' }, grants: { net: ['b.example'], env: ['KEY'] } },
        notes: { enabled: false },
      },
      mcpServers: { files: { url: 'http://127.0.0.1:9/mcp' } },
    });
  });

  it('keeps a "__proto__" key as data, never as a prototype', () => {
    const file = JSON.parse('{"plugins":{"__proto__":{"enabled":false}}}') as ToolhostConfig;
    const code = JSON.parse('{"plugins":{"__proto__":{"hooks":"all"}}}') as ToolhostConfig;
    const layered = layerConfig(file, code);
    expect(Object.getPrototypeOf(layered.plugins)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(layered.plugins, '__proto__')?.value).toEqual({
      enabled: false,
      hooks: 'all',
    });
  });

  it('tools.approve adds up: code that sets its own list cannot drop an approval the file asks for', () => {
    const layered = layerConfig(
      { tools: { approve: ['exec', { tool: 'write', reason: 'edits files' }] } },
      { tools: { approve: ['mcp__github__*'] } },
    );
    expect(layered.tools?.approve).toEqual([
      'exec',
      { tool: 'write', reason: 'edits files' },
      'mcp__github__*',
    ]);
  });
});
