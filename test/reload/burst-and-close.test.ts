import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginSource, watchedProject } from './harness.js';

type Project = Awaited<ReturnType<typeof watchedProject>>;

describe('bursts of file events', () => {
  let project: Project;
  afterEach(async () => {
    await project.close();
  });

  it('turns a save touching several files of a plugin into one rebuild', async () => {
    project = await watchedProject();
    await project.writePlugin('multi', pluginSource('multi', 'multi_tool', "'v0'"));
    await project.start({});
    const burst = project.nextChange((c) => c.cause.includes('multi'));
    const dir = path.join(project.root, 'plugins', 'multi');
    await Promise.all([
      writeFile(path.join(dir, 'helper.ts'), 'export const x = 1;\n'),
      writeFile(path.join(dir, 'notes.md'), 'notes\n'),
      writeFile(path.join(dir, 'index.ts'), pluginSource('multi', 'multi_tool', "'v1'")),
    ]);
    const first = await burst;
    expect(first.cause).toBe('plugins:multi');
    // The next edit's swap comes right after the burst's: no stray rebuild in between.
    const next = project.nextChange((c) => c.cause.includes('multi'));
    await writeFile(path.join(dir, 'index.ts'), pluginSource('multi', 'multi_tool', "'v2'"));
    expect((await next).version).toBe(first.version + 1);
    expect((await project.call('multi_tool')).text).toBe('v2');
  });

  it('names every plugin a checkout touched in one batch', async () => {
    project = await watchedProject();
    await project.writePlugin('one', pluginSource('one', 'one_tool', "'1'"));
    await project.writePlugin('two', pluginSource('two', 'two_tool', "'2'"));
    await project.start({});
    const both = project.nextChange((c) => c.cause.includes('one') && c.cause.includes('two'));
    await Promise.all([
      project.writePlugin('one', pluginSource('one', 'one_tool', "'1b'")),
      project.writePlugin('two', pluginSource('two', 'two_tool', "'2b'")),
    ]);
    const change = await both;
    expect(change.cause).toMatch(/^plugins:(one,two|two,one)$/);
    expect((await project.call('one_tool')).text).toBe('1b');
    expect((await project.call('two_tool')).text).toBe('2b');
  });
});

describe('close()', () => {
  it('leaves nothing that keeps the process alive', async () => {
    const project = await watchedProject();
    await project.writePlugin('alive', pluginSource('alive', 'alive_tool', "'yes'"));
    const hostModule = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      '../../packages/host/dist/index.js',
    );
    // A separate process: it must exit by itself once close() resolves (watcher, executor, timers gone).
    const script = `
      const { createHost } = await import(${JSON.stringify(hostModule)});
      const host = await createHost({ root: ${JSON.stringify(project.root)}, builtins: false, watch: true,
        sandbox: 'process', cache: false });
      const outcome = await host.session().call('alive_tool', {});
      process.stdout.write(outcome.result.content[0].text + '\\n');
      await host.close();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(timer);
    await project.close();
    expect(out.trim()).toBe('yes');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });
});
