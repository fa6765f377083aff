/** A plugin config error says where to write the config, in what shape, and which keys are unknown. */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { project, toolhostInProcess } from './cli.js';

const PLUGIN = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'api',
  config: z.object({ baseUrl: z.string(), units: z.enum(['metric', 'imperial']).optional() }),
  tools: [
    defineTool({ name: 'api_ping', description: 'Pings', input: z.object({}), execute: () => 'pong' }),
  ],
});
`;

async function listWith(config: unknown): Promise<string> {
  const { root, dispose } = await project([], { builtins: false, ...(config as object) });
  try {
    await mkdir(path.join(root, 'plugins', 'api'));
    await writeFile(path.join(root, 'plugins', 'api', 'index.ts'), PLUGIN);
    const run = await toolhostInProcess(['list', '--root', root], { cwd: root });
    expect(run.code).toBe(0);
    return run.stdout;
  } finally {
    await dispose();
  }
}

const SHAPE = 'shaped { baseUrl: string, units?: "metric" | "imperial" }';

describe.concurrent('plugin config messages', () => {
  it('no config at all: add plugins.<id>.config, with the expected shape', async () => {
    const out = await listWith({});
    expect(out).toContain(`Fix: add plugins.api.config to toolhost.config.json, ${SHAPE}`);
  });

  it('a near-miss key: the unknown key is flagged with what it likely meant', async () => {
    const out = await listWith({ plugins: { api: { config: { baseURL: 'https://x.example' } } } });
    expect(out).toContain(
      `Fix: correct plugins.api.config in toolhost.config.json, ${SHAPE}; unknown key "baseURL" (did you mean "baseUrl"?)`,
    );
  });

  it('a valid config with an extra key is a warning, not silence', async () => {
    const out = await listWith({
      plugins: { api: { config: { baseUrl: 'https://x.example', unit: 'metric' } } },
    });
    expect(out).toMatch(/api +loaded/);
    expect(out).toContain(
      '⚠ plugins.api.config: unknown key "unit" (did you mean "units"?), ignored by the plugin',
    );
  });
});
