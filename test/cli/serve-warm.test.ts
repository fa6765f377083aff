import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { childrenOf, isExecutorProcess } from '../../bench/lib/proc.mjs';
import { project, serveOverStdio, startToolhost, toolhost } from './cli.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The children of `pid` that start the executor (bubblewrap, when jailed; the executor inside comes a moment later). */
const executorsUnder = (pid: number): number[] => childrenOf(pid).filter(isExecutorProcess);

/** Every file under `dir` with its modification time: what a start that builds or describes changes. */
function filesOf(dir: string): Record<string, number> {
  const files: Record<string, number> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, file)] = statSync(file).mtimeMs;
  }
  return files;
}

/**
 * Dates every file under `dir` an hour back: the bundle cache trusts a stat only when the file is
 * older than its racy window (cache.ts), and otherwise refreshes its index at the next start.
 */
function age(dir: string): void {
  const then = Date.now() / 1000 - 3600;
  for (const file of Object.keys(filesOf(dir))) utimesSync(path.join(dir, file), then, then);
}

/** Resolves once process `pid` is gone (its last cache writes are made at its exit). */
function exited(pid: number): Promise<void> {
  return vi.waitFor(() => expect(existsSync(`/proc/${pid}`)).toBe(false), { timeout: 60_000, interval: 20 });
}

/** `toolhost serve` (stdio, the default process sandbox) on `root`, connected with the SDK client. */
async function serve(root: string) {
  const { transport, stderr } = serveOverStdio(root);
  const client = new Client({ name: 'serve-warm-test', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, stderr, pid: transport.pid ?? 0 };
}

describe('toolhost serve and dev start the executor before the first call', () => {
  it('on a start from the caches (nothing built), the executor runs once serving begins, and the first call goes to it', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    cleanups.push(dispose);
    age(path.join(root, 'plugins'));
    // The first serve builds and describes the plugin (which starts an executor anyway) and
    // fills the caches; it is closed once the tool is served.
    const first = await serve(root);
    await first.stderr.waitFor(/toolhost: serving/);
    await expect
      .poll(async () => (await first.client.listTools()).tools.map((t) => t.name))
      .toContain('healthy_echo');
    await first.client.close();
    await exited(first.pid);
    const cache = path.join(root, '.toolhost', 'cache');
    const cached = filesOf(cache);
    expect(Object.keys(cached).length).toBeGreaterThan(0);

    const second = await serve(root);
    await second.stderr.waitFor(/toolhost: serving/);
    // No call yet: the executor was started for the calls to come.
    const warmed = executorsUnder(second.pid);
    expect(warmed.length).toBeGreaterThan(0);
    const result = await second.client.callTool({ name: 'healthy_echo', arguments: { text: 'warm' } });
    expect((result as { content: { text: string }[] }).content[0]?.text).toBe('echo: warm');
    // The call went to the executor already running: no other was started for it.
    expect(executorsUnder(second.pid)).toEqual(warmed);
    await second.client.close();
    await exited(second.pid);
    // And nothing was built or described meanwhile (which would have started it too): the
    // caches are as the first serve left them.
    expect(filesOf(cache)).toEqual(cached);
  });

  it('toolhost dev too: on a start from the caches, the executor runs once it listens', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    cleanups.push(dispose);
    age(path.join(root, 'plugins'));
    // `toolhost list` builds and describes the plugin, fills the caches, and exits.
    expect((await toolhost(['list', '--root', root], { timeoutMs: 60_000 })).code).toBe(0);
    const cache = path.join(root, '.toolhost', 'cache');
    const cached = filesOf(cache);
    expect(Object.keys(cached).length).toBeGreaterThan(0);
    const dev = startToolhost(['dev', '--port', '0', '--root', root]);
    try {
      await dev.stdout.waitFor(/MCP http:\/\/127\.0\.0\.1:\d+\/mcp/);
      expect(executorsUnder(dev.child.pid ?? 0).length).toBeGreaterThan(0);
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
    }
    expect(filesOf(cache)).toEqual(cached);
  });

  it('starts none for a project without plugins', async () => {
    const { root, dispose } = await project([], { builtins: true });
    cleanups.push(dispose);
    const { client, stderr, pid } = await serve(root);
    await stderr.waitFor(/toolhost: serving/);
    // The warm-up is decided, synchronously, before that line is written.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(executorsUnder(pid)).toEqual([]);
  });
});
