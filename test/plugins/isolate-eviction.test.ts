import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it, vi } from 'vitest';
import { textOf, useHosts } from './project.js';

/** vi.waitFor gives up after 1 s by default: a loaded machine (two test files at once) can take longer. */
const WAIT = { timeout: 60_000, interval: 20 };

const counter = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins/counter');

/** Copies of the counter plugin under the ids `counter`, `counter-b`, … (its tools `<id>_next`). */
async function counters(root: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const dir = path.join(root, 'plugins', id);
    await mkdir(dir, { recursive: true });
    await cp(path.join(counter, 'index.ts'), path.join(dir, 'index.ts'));
    if (id === 'counter') continue;
    const source = (await readFile(path.join(dir, 'index.ts'), 'utf8'))
      .replace("id: 'counter'", `id: '${id}'`)
      .replaceAll("name: 'counter_", `name: '${id.replace('-', '_')}_`);
    await writeFile(path.join(dir, 'index.ts'), source);
  }
}

async function next(host: ToolHost, tool = 'counter_next'): Promise<string> {
  const outcome = await host.session().call(tool, {}, `t-${tool}`);
  if (outcome.status !== 'ok') throw new Error(`${tool}: ${outcome.status} ${textOf(outcome.result)}`);
  return textOf(outcome.result);
}

describe.each(['inline', 'process'] as const)('plugin isolates in the %s sandbox', (sandbox) => {
  const h = useHosts();

  it('go when idle, and the next call re-creates them with module-scope state fresh', async () => {
    const { root } = await h.project([]);
    await counters(root, ['counter']);
    const host = await h.hostFor(root, { sandbox });
    expect(await next(host)).toBe('1');
    expect(await next(host)).toBe('2');
    expect(await host.isolates()).toMatchObject({ live: 1, evicted: { idle: 0 } });
    // Ten milliseconds idle (milliseconds only through the Sandbox interface; config says seconds).
    internalsOf(host).sandbox?.configureIsolates({ idleMs: 10, maxLive: 200 });
    await vi.waitFor(
      async () => expect(await host.isolates()).toMatchObject({ live: 0, evicted: { idle: 1 } }),
      WAIT,
    );
    // Long again, so the isolate the next call makes is still there when it is counted.
    internalsOf(host).sandbox?.configureIsolates({ idleMs: 60_000, maxLive: 200 });
    expect(await next(host)).toBe('1');
    expect(await host.isolates()).toMatchObject({ live: 1 });
  });

  it('stay within isolates.maxLive from config: the least recently used idle one goes', async () => {
    const { root } = await h.project([]);
    await counters(root, ['counter', 'counter-b', 'counter-c']);
    const host = await h.hostFor(root, { sandbox, isolates: { maxLive: 2 } });
    expect(await host.isolates()).toMatchObject({ maxLive: 2, idleMs: 300_000 });
    await next(host, 'counter_next');
    await next(host, 'counter_b_next');
    await next(host, 'counter_next');
    await next(host, 'counter_c_next');
    expect(await host.isolates()).toMatchObject({ live: 2, evicted: { idle: 0, cap: 1 } });
    // counter-b was the least recently used: it alone starts over.
    expect(await next(host, 'counter_next')).toBe('3');
    expect(await next(host, 'counter_c_next')).toBe('2');
    expect(await next(host, 'counter_b_next')).toBe('1');
  });
});

describe('the executor process', () => {
  const h = useHosts();

  it('ends when every isolate has been idle, and the next call starts a new one: no crash, counts go on', async () => {
    const { root } = await h.project([]);
    await counters(root, ['counter']);
    const host = await h.hostFor(root, { sandbox: 'process' });
    const sandbox = internalsOf(host).sandbox as unknown as { pid: number | undefined; generation: number };
    expect(await next(host)).toBe('1');
    const first = sandbox.pid;
    expect(first).toBeDefined();
    const crashes: string[] = [];
    host.on('change', (change) => crashes.push(change.cause));
    internalsOf(host).sandbox?.configureIsolates({ idleMs: 20, maxLive: 200 });
    await vi.waitFor(() => expect(sandbox.pid).toBeUndefined(), WAIT);
    // The process ends, not only unlisted (its exit can trail the unlisting on a loaded machine).
    await vi.waitFor(() => expect(() => process.kill(first as number, 0)).toThrow(), WAIT);
    expect(await host.isolates()).toMatchObject({ live: 0, evicted: { idle: 1 } });
    internalsOf(host).sandbox?.configureIsolates({ idleMs: 300_000, maxLive: 200 });
    expect(await next(host)).toBe('1');
    expect(sandbox.pid).not.toBe(first);
    expect(sandbox.generation).toBe(2);
    expect(await host.isolates()).toMatchObject({ live: 1, evicted: { idle: 1 } });
    // Not charged to the plugin: no quarantine rebuild, the plugin is loaded.
    expect(crashes.filter((cause) => cause.startsWith('quarantine'))).toEqual([]);
    expect(host.plugins.find((p) => p.id === 'counter')?.status).toBe('loaded');
  });
});

describe('isolates settings in the config file', () => {
  const h = useHosts();

  it.each(['inline', 'process'] as const)('apply on reload, without a restart (%s)', async (sandbox) => {
    const { root } = await h.project([]);
    await counters(root, ['counter', 'counter-b']);
    const configFile = path.join(root, 'toolhost.config.json');
    await writeFile(configFile, JSON.stringify({ isolates: { maxLive: 5 } }));
    const host = await h.hostFor(root, { sandbox });
    await next(host, 'counter_next');
    await next(host, 'counter_b_next');
    expect(await host.isolates()).toMatchObject({ live: 2, maxLive: 5 });
    await writeFile(configFile, JSON.stringify({ isolates: { maxLive: 1, idleSeconds: 60 } }));
    await host.reload();
    expect(await host.isolates()).toMatchObject({ live: 1, maxLive: 1, idleMs: 60_000, evicted: { cap: 1 } });
  });
});
