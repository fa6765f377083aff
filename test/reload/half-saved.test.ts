import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginSource, watchedProject } from './harness.js';

type Project = Awaited<ReturnType<typeof watchedProject>>;

describe('a save written in two steps (truncate, then write), as editors that save in place do', () => {
  let project: Project;
  afterEach(async () => {
    await project.close();
  });

  it.each(['inline', 'process'] as const)(
    'ends on the full file, however the steps fall (%s)',
    async (sandbox) => {
      project = await watchedProject({ sandbox });
      const source = (version: number) =>
        pluginSource('half', 'half_tool', `'v${version}'`).replace('reload test tool', `version ${version}`);
      await project.writePlugin('half', source(0));
      await project.start({});
      const file = path.join(project.root, 'plugins', 'half', 'index.ts');
      for (let version = 1; version <= 8; version++) {
        const landed = project.nextChange(
          (change) => change.changed.includes('half_tool') && project.host.plugins[0]?.status === 'loaded',
        );
        const handle = await open(file, 'r+');
        await handle.truncate(0);
        // A pause between the steps, growing: some saves fall inside one watcher window, some apart.
        await new Promise((resolve) => setTimeout(resolve, version * 15));
        await handle.write(source(version));
        await handle.close();
        await landed;
        expect(await project.call('half_tool')).toEqual({ text: `v${version}`, isError: false });
      }
    },
  );
});
