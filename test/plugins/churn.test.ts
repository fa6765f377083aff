import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type ToolHost } from '@toolhost/host';
import type { ProcessSandbox } from '@toolhost/host/internal';
import { internalsOf } from '@toolhost/host/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { latchServer } from './latch.js';
import { textOf } from './project.js';

function source(version: string, port: number, id = 'churn'): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: '${id}',
  permissions: { net: ['127.0.0.1:${port}'] },
  tools: [
    defineTool({
      name: '${id}_echo',
      description: 'Answers its version and its tag, the tag as the host fetched it back',
      input: z.object({ tag: z.string() }),
      execute: async ({ tag }, ctx) =>
        '${version}:' + (await (await ctx.fetch('http://127.0.0.1:${port}/echo/' + tag)).text()),
    }),
  ],
});
`;
}

/** What a call of the plugin nobody touches may answer instead of its tag: only a killed process. */
const KILLED = /the executor process died \(signal SIGKILL\) while this call was running/;

/** What a call may answer while its plugin churns: its own tag, or an error that says why. */
const ALLOWED_ERRORS = [
  /is not available: plugin-disabled: plugin "churn" is disabled in config/,
  /is not available: plugin-load-failed: plugin "churn" does not build/,
  /the executor process died \(signal SIGKILL\) while this call was running/,
];

describe.each(['inline', 'process'] as const)(
  'a plugin edited, broken, disabled and re-enabled under callers (%s)',
  (sandbox) => {
    let host: ToolHost | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await host?.close();
      host = undefined;
      await cleanup?.();
    });

    it("gives every call exactly one answer, its own, or an error naming why; a neighbour's calls succeed", async () => {
      const server = await latchServer();
      const root = await mkdtemp(path.join(tmpdir(), 'toolhost-churn-'));
      cleanup = async () => {
        await server.close();
        await rm(root, { recursive: true, force: true });
      };
      const folder = path.join(root, 'plugins', 'churn');
      await mkdir(folder, { recursive: true });
      // A neighbour in the same sandbox that nobody edits, disables or breaks.
      await mkdir(path.join(root, 'plugins', 'steady'), { recursive: true });
      await writeFile(path.join(root, 'plugins', 'steady', 'index.ts'), source('s', server.port, 'steady'));
      const net = { net: [`127.0.0.1:${server.port}`] };
      const config = (enabled: boolean) =>
        writeFile(
          path.join(root, 'toolhost.config.json'),
          JSON.stringify({ plugins: { churn: { enabled, grants: net }, steady: { grants: net } } }),
        );
      await writeFile(path.join(folder, 'index.ts'), source('v0', server.port));
      await config(true);
      host = await createHost({
        root,
        builtins: false,
        availability: { env: {} },
        sandbox,
        cache: false,
      });
      const live = host;

      let stop = false;
      let made = 0;
      const answers: { tool: string; tag: string; text: string; isError: boolean }[] = [];
      // 12 callers of the churning plugin, 4 of its neighbour, all at once.
      const callers = Array.from({ length: 16 }, async (_, caller) => {
        const tool = caller < 12 ? 'churn_echo' : 'steady_echo';
        for (let n = 0; !stop; n++) {
          const tag = `c${caller}n${n}`;
          made += 1;
          const outcome = await live.session().call(tool, { tag });
          answers.push({ tool, tag, text: textOf(outcome.result), isError: outcome.result.isError === true });
          // A refused call answers at once: without a turn of the event loop the reload never runs.
          await new Promise((resolve) => setImmediate(resolve));
        }
      });
      const kill = () => {
        if (sandbox === 'process')
          process.kill((internalsOf(live).sandbox as ProcessSandbox).pid ?? 0, 'SIGKILL');
      };
      const steps: (() => Promise<void>)[] = [
        () => writeFile(path.join(folder, 'index.ts'), source('v1', server.port)),
        () => config(false),
        () => config(true),
        async () => kill(),
        () => writeFile(path.join(folder, 'index.ts'), 'export default {{{'),
        () => writeFile(path.join(folder, 'index.ts'), source('v2', server.port)),
        async () => kill(),
      ];
      for (const step of steps) {
        await step();
        const swapped = await live.reload();
        expect(swapped).toHaveProperty('version');
      }
      stop = true;
      await Promise.all(callers);

      expect(answers).toHaveLength(made);
      expect(new Set(answers.map((a) => a.tag)).size).toBe(made);
      for (const answer of answers) {
        const steady = answer.tool === 'steady_echo';
        if (!answer.isError)
          expect(answer.text).toMatch(new RegExp(`^${steady ? 's' : 'v[0-2]'}:${answer.tag}$`));
        else if (steady) expect(answer.text).toMatch(KILLED);
        else
          expect(
            ALLOWED_ERRORS.some((pattern) => pattern.test(answer.text)),
            answer.text,
          ).toBe(true);
      }
      for (const tool of ['churn_echo', 'steady_echo']) {
        expect(answers.filter((a) => a.tool === tool && !a.isError).length, tool).toBeGreaterThan(0);
      }
      if (sandbox === 'inline')
        expect(answers.filter((a) => a.tool === 'steady_echo' && a.isError)).toEqual([]);
      expect(textOf((await live.session().call('churn_echo', { tag: 'last' })).result)).toBe('v2:last');
      expect(textOf((await live.session().call('steady_echo', { tag: 'last' })).result)).toBe('s:last');
      expect(await internalsOf(live).sandbox?.isolateCount()).toBe(2);
    });
  },
);
