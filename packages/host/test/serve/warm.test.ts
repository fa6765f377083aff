/**
 * What a host does as it starts serving MCP (serve/warm.ts): the JSON Schema compiler that checks
 * plugin tools' input is loaded then, just after that turn, and not by the session's first plugin
 * call.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { inputCheckWarmth } from '../../src/core/wrap/input-check.js';
import { createHost, type ToolHost } from '../../src/index.js';
import { warmForServing } from '../../src/serve/warm.js';

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/plugins',
);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('warming a host for serving', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function hostWith(plugins: string[]): Promise<ToolHost> {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-warm-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await mkdir(path.join(root, 'plugins'));
    for (const id of plugins)
      await cp(path.join(fixtures, id), path.join(root, 'plugins', id), { recursive: true });
    const host = await createHost({ root, builtins: false, sandbox: 'inline', cache: false });
    cleanups.push(() => host.close());
    return host;
  }

  it('loads the input schema compiler just after the turn serving starts in, for a host with plugins', async () => {
    const host = await hostWith(['healthy']);
    expect(host.plugins.map((plugin) => plugin.status)).toEqual(['loaded']);
    const before = inputCheckWarmth().warmups;
    warmForServing(host);
    // Not in this turn: what else starts serving goes first.
    expect(inputCheckWarmth().warmups).toBe(before);
    await nextTurn();
    expect(inputCheckWarmth()).toEqual({ warmups: before + 1, loaded: true });
  });

  it('loads nothing for a host with no plugin', async () => {
    const host = await hostWith([]);
    const before = inputCheckWarmth().warmups;
    warmForServing(host);
    await nextTurn();
    expect(inputCheckWarmth().warmups).toBe(before);
  });
});
