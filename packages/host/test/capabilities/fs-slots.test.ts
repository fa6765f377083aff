import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityProvider } from '../../src/capabilities/index.js';
import { live, makeProject, type Project, provider } from './helpers.js';

let project: Project;
beforeEach(async () => {
  project = await makeProject();
  // Reading it takes 64 reads of 64 KiB; a stat takes one call.
  await fs.writeFile(path.join(project.root, 'data', 'big.txt'), 'b'.repeat(4 * 1024 * 1024));
});
afterEach(async () => {
  await project.cleanup();
});

function limited(fsConcurrency?: number): CapabilityProvider {
  return provider(
    project.root,
    { fs: { read: ['data'] } },
    { fs: { read: ['data'] } },
    fsConcurrency === undefined ? {} : { limits: { fsConcurrency } },
  );
}

/** Starts each named request at once, in order, and lists the names in the order they settled. */
async function settleOrder(
  p: CapabilityProvider,
  requests: readonly [string, string, unknown][],
): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(
    requests.map(([name, capability, args]) =>
      p.invoke(capability, args, live()).finally(() => order.push(name)),
    ),
  );
  return order;
}

describe('one plugin runs at most fsConcurrency ctx.fs operations at once', () => {
  it('with fsConcurrency 1, a quick stat waits for a long read started before it', async () => {
    const order = await settleOrder(limited(1), [
      ['read', 'fs.readFile', { path: 'data/big.txt' }],
      ['stat', 'fs.stat', { path: 'data/a.txt' }],
    ]);
    expect(order).toEqual(['read', 'stat']);
  });

  it('by default two run at once: a third waits until one of them ends', async () => {
    const order = await settleOrder(limited(), [
      ['read 1', 'fs.readFile', { path: 'data/big.txt' }],
      ['read 2', 'fs.readFile', { path: 'data/big.txt' }],
      ['stat', 'fs.stat', { path: 'data/a.txt' }],
    ]);
    expect(order.indexOf('stat')).toBeGreaterThan(0);
  });

  it('operations over the limit wait their turn and none fails', async () => {
    const p = limited(1);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0
          ? p.invoke('fs.readFile', { path: 'data/a.txt' }, live())
          : p.invoke('fs.readdir', { path: 'data/sub' }, live()),
      ),
    );
    expect(
      results.filter((r, i) => (i % 2 === 0 ? r !== 'alpha\n' : JSON.stringify(r) !== '["b.txt"]')),
    ).toEqual([]);
  });

  it('an operation whose call ends while it waits leaves the queue with "aborted", and its turn is not lost', async () => {
    const p = limited(1);
    const ended = new AbortController();
    const read = p.invoke('fs.readFile', { path: 'data/big.txt' }, live());
    const waiting = p.invoke('fs.stat', { path: 'data/a.txt' }, ended.signal);
    ended.abort();
    await expect(waiting).rejects.toMatchObject({
      code: 'aborted',
      message: 'ctx.fs.stat was aborted while it waited for a ctx.fs slot: its call ended',
    });
    expect(await read).toHaveLength(4 * 1024 * 1024);
    expect(await p.invoke('fs.readFile', { path: 'data/a.txt' }, live())).toBe('alpha\n');
  });
});
