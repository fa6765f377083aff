import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, parseConfig } from '../../src/config/load.js';
import type { ToolhostConfig } from '../../src/config/schema.js';

/** Every top-level key, and every nested one, set to something valid. */
const fullConfig = {
  $schema: './node_modules/@toolhost/host/toolhost.config.schema.json',
  builtins: {
    enabled: true,
    maxReadBytes: 1_000_000,
    exec: { enabled: true, timeoutMs: 5_000, maxOutputBytes: 65_536, allowedCommands: ['git', 'npm'] },
    grep: { searchBudgetMs: 5_000, fileBudgetMs: 200 },
  },
  tools: { allow: ['read', 'group:fs', 'notes_*'], deny: ['write'] },
  plugins: {
    notes: {
      enabled: true,
      config: { folder: 'notes', tags: ['a', 'b'] },
      grants: {
        net: ['api.example.com', '*.example.org', '127.0.0.1:8080'],
        fs: { read: ['docs'], write: ['notes'] },
        env: ['NOTES_TOKEN'],
      },
      limits: { memoryMb: 128, timeoutMs: 10_000, cpuMs: 2_000, maxResultChars: 100_000 },
      hooks: 'all',
    },
    weather: { enabled: false, hooks: 'own' },
  },
  limits: {
    timeoutMs: 20_000,
    hookTimeoutMs: 2_000,
    maxResultChars: 500_000,
    plugin: { memoryMb: 64, timeoutMs: 30_000, cpuMs: 10_000, maxResultChars: 4_000_000 },
  },
  sandbox: 'inline',
  isolates: { idleSeconds: 120, maxLive: 50 },
  signals: {
    auth: ['github'],
    env: ['GITHUB_TOKEN'],
    config: { github: { org: 'acme' } },
    context: { channel: 'cli', interactive: true },
  },
  mcpServers: {
    files: { command: 'npx', args: ['-y', 'some-mcp-server'], env: { DEBUG: '1' }, cwd: 'tools' },
    remote: { url: 'https://mcp.example.com/sse', headers: { Authorization: 'Bearer x' } },
  },
  serve: { sessionIdleMs: 600_000, maxSessions: 32, maxBodyBytes: 1_048_576 },
} satisfies ToolhostConfig;

describe('config schema', () => {
  it('ships a toolhost.config.schema.json equal to configJsonSchema()', async () => {
    const file = new URL('../../toolhost.config.schema.json', import.meta.url);
    const shipped: unknown = JSON.parse(await readFile(file, 'utf8'));
    expect(
      shipped,
      'toolhost.config.schema.json is stale: run `npm run build && npm run schema -w @toolhost/host`',
    ).toEqual(configJsonSchema());
  });

  it('generates a draft 2020-12 schema that rejects unknown keys at the root', () => {
    const schema = configJsonSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object).sort()).toEqual(
      [
        '$schema',
        'approvals',
        'audit',
        'builtins',
        'isolates',
        'limits',
        'mcpServers',
        'plugins',
        'principals',
        'sandbox',
        'serve',
        'signals',
        'telemetry',
        'tools',
      ].sort(),
    );
  });

  it('accepts a config that sets every key', () => {
    expect(parseConfig(fullConfig, 'toolhost.config.json')).toEqual({
      ok: true,
      config: fullConfig,
      found: true,
    });
  });

  it('refuses isolates settings that are not positive whole numbers, naming each key', () => {
    const outcome = parseConfig({ isolates: { idleSeconds: 0.5, maxLive: 0, idle: 3 } }, 'f.json');
    expect(outcome.ok).toBe(false);
    const paths = outcome.ok ? [] : outcome.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['isolates', 'isolates.idleSeconds', 'isolates.maxLive']);
  });

  it('refuses a tool catalog budget that is not a positive whole number, and unknown catalog keys, by path', () => {
    const outcome = parseConfig(
      { tools: { defer: ['github_*'], catalog: { autoBudgetTokens: 0, alwys: ['x'] } } },
      'f.json',
    );
    const paths = outcome.ok ? [] : outcome.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['tools.catalog', 'tools.catalog.autoBudgetTokens']);
    expect(
      parseConfig(
        { tools: { defer: ['group:mcp'], catalog: { always: ['read'], autoBudgetTokens: 5000 } } },
        'f.json',
      ),
    ).toMatchObject({ ok: true });
  });

  it('accepts the empty config and boolean builtins', () => {
    expect(parseConfig({}, 'f.json')).toMatchObject({ ok: true, config: {} });
    expect(parseConfig({ builtins: false }, 'f.json')).toMatchObject({
      ok: true,
      config: { builtins: false },
    });
  });
});
