import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { counter, latchServer } from './latch.js';
import { textOf } from './project.js';

function pluginSource(version: string, port: number): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'held',
  permissions: { net: ['127.0.0.1:${port}'] },
  tools: [
    defineTool({
      name: 'held_call',
      description: 'Answers with its version once the test lets its fetch through',
      input: z.object({}),
      execute: async (_input, ctx) => {
        const res = await ctx.fetch('http://127.0.0.1:${port}/hold');
        return '${version}: ' + (await res.text());
      },
    }),
  ],
});
`;
}

type Change = 'disabled' | 'removed' | 'replaced' | 'broken';

const refusal: Record<Exclude<Change, 'replaced'>, RegExp> = {
  disabled: /plugin-disabled: plugin "held" is disabled in config/,
  removed: /Unknown tool "held_call"/,
  broken: /plugin-load-failed: plugin "held" does not build/,
};

describe.each(['inline', 'process'] as const)('unloading a plugin under admitted calls (%s)', (sandbox) => {
  let host: ToolHost | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
    await cleanup?.();
  });

  it.each(['disabled', 'removed', 'replaced', 'broken'] as Change[])(
    'every call admitted before the plugin is %s runs to its end on the version it was admitted with',
    async (change) => {
      const server = await latchServer();
      const root = await mkdtemp(path.join(tmpdir(), 'toolhost-drain-'));
      cleanup = async () => {
        server.open();
        await server.close();
        await rm(root, { recursive: true, force: true });
      };
      const folder = path.join(root, 'plugins', 'held');
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, 'index.ts'), pluginSource('v1', server.port));
      const config = (enabled: boolean) =>
        JSON.stringify({
          plugins: { held: { enabled, grants: { net: [`127.0.0.1:${server.port}`] } } },
        });
      await writeFile(path.join(root, 'toolhost.config.json'), config(true));
      host = await createHost({
        root,
        builtins: false,
        availability: { env: {} },
        sandbox,
        cache: false,
      });

      // Half the calls are admitted and wait in a before-hook (not yet in the sandbox); the other
      // half run inside the isolate, held in their fetch.
      const HALF = 6;
      const inHook = counter();
      let openHook: () => void = () => {};
      const hookOpen = new Promise<void>((resolve) => {
        openHook = resolve;
      });
      host.addHooks({
        name: 'latch',
        beforeToolCall: async (event) => {
          if (!event.toolUseId.startsWith('hooked-')) return;
          inHook.bump();
          await hookOpen;
        },
      });
      const running = Array.from({ length: HALF }, (_, i) =>
        // One session per call: hooks of one session run one at a time under its lock.
        host?.session().call('held_call', {}, `running-${i}`),
      );
      await server.arrived.reached(HALF);
      const hooked = Array.from({ length: HALF }, (_, i) =>
        host?.session().call('held_call', {}, `hooked-${i}`),
      );
      await inHook.reached(HALF);

      if (change === 'disabled') await writeFile(path.join(root, 'toolhost.config.json'), config(false));
      if (change === 'removed') await rm(folder, { recursive: true, force: true });
      if (change === 'broken') await writeFile(path.join(folder, 'index.ts'), 'export default {{{');
      if (change === 'replaced')
        await writeFile(path.join(folder, 'index.ts'), pluginSource('v2', server.port));
      const swapped = await host.reload();
      expect(swapped).toHaveProperty('version');

      const after = host.session().call('held_call', {}, 'after');
      if (change !== 'replaced') {
        const refused = await after;
        expect(refused.status).toBe('blocked');
        expect(textOf(refused.result)).toMatch(refusal[change]);
      }

      openHook();
      server.open();
      const outcomes = await Promise.all([...running, ...hooked]);
      for (const outcome of outcomes) {
        expect(outcome?.result.isError, textOf(outcome?.result ?? { content: [] })).not.toBe(true);
        expect(textOf(outcome?.result ?? { content: [] })).toBe('v1: released');
      }
      if (change === 'replaced') expect(textOf((await after).result)).toBe('v2: released');
      // The old version's isolate is gone once its calls drained.
      expect(await internalsOf(host).sandbox?.isolateCount()).toBe(change === 'replaced' ? 1 : 0);
    },
  );
});
