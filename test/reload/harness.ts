import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type HostChange, type HostOptions, type ToolHost } from '@toolhost/host';

/** Source of a plugin with one tool `<name>` answering `reply` (a JS expression over `input`, `ctx`). */
export function pluginSource(id: string, name: string, reply: string, extra = ''): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: ${JSON.stringify(id)},
  ${extra}
  tools: [
    defineTool({
      name: ${JSON.stringify(name)},
      description: 'reload test tool',
      input: z.object({}).passthrough(),
      execute: async (input, ctx) => ${reply},
    }),
  ],
});
`;
}

/** A temp project with a watching host; helpers to edit it and await the resulting change. */
export async function watchedProject(options: Omit<HostOptions, 'root' | 'watch'> = {}) {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-reload-'));
  await mkdir(path.join(root, 'plugins'));
  const changes: HostChange[] = [];
  const waiters: { test: (c: HostChange) => boolean; resolve: (c: HostChange) => void }[] = [];
  let host: ToolHost | undefined;

  const project = {
    root,
    get host(): ToolHost {
      if (host === undefined) throw new Error('start() first');
      return host;
    },
    async start(config?: unknown) {
      if (config !== undefined) await project.writeConfig(config);
      host = await createHost({
        root,
        builtins: false,
        availability: { env: {} },
        sandbox: 'inline',
        cache: false,
        ...options,
        watch: true,
      });
      host.on('change', (change) => {
        changes.push(change);
        for (const waiter of [...waiters]) {
          if (waiter.test(change)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(change);
          }
        }
      });
      return host;
    },
    /** Resolves with the first change (from now on) that satisfies `test`; fails after 60 s (a hang guard). */
    nextChange(test: (change: HostChange) => boolean = () => true): Promise<HostChange> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching change; changes so far: ${JSON.stringify(changes.slice(-5))}`)),
          60_000,
        );
        waiters.push({
          test,
          resolve: (change) => {
            clearTimeout(timer);
            resolve(change);
          },
        });
      });
    },
    async writePlugin(id: string, source: string, folder = id) {
      await mkdir(path.join(root, 'plugins', folder), { recursive: true });
      await writeFile(path.join(root, 'plugins', folder, 'index.ts'), source);
    },
    async writeConfig(config: unknown) {
      await writeFile(
        path.join(root, 'toolhost.config.json'),
        typeof config === 'string' ? config : JSON.stringify(config, null, 2),
      );
    },
    async call(name: string, input: unknown = {}) {
      const outcome = await project.host.session().call(name, input);
      return {
        text: outcome.result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'),
        isError: outcome.result.isError === true,
      };
    },
    async close() {
      await host?.close();
      await rm(root, { recursive: true, force: true });
    },
  };
  return project;
}
