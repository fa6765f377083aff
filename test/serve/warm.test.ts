import { PassThrough } from 'node:stream';
import { createHost, serveHttp, serveStdio, type ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { project } from '../cli/cli.js';

/** The executor process of `host`'s sandbox (bubblewrap's, when jailed), if one runs. */
const executorOf = (host: ToolHost) => (internalsOf(host).sandbox as { pid?: number } | undefined)?.pid;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A host of a project with the `healthy` plugin that has started no executor: the plugin comes
 * from the caches a first host filled (a build would have started one).
 */
async function hostFromCaches(): Promise<ToolHost> {
  const { root, dispose } = await project(['healthy'], { builtins: false });
  cleanups.push(dispose);
  const first = await createHost({ root, cache: true });
  await first.close();
  const host = await createHost({ root, cache: true });
  cleanups.push(() => host.close());
  expect(host.plugins.map((p) => [p.id, p.status])).toEqual([['healthy', 'loaded']]);
  expect(executorOf(host)).toBeUndefined();
  return host;
}

describe('a host that begins serving MCP starts its executor before the first call', () => {
  it('serveStdio', async () => {
    const host = await hostFromCaches();
    const served = await serveStdio(host, { stdin: new PassThrough(), stdout: new PassThrough() });
    cleanups.push(() => served.close());
    expect(executorOf(host)).toBeDefined();
  });

  it('serveHttp', async () => {
    const host = await hostFromCaches();
    const served = await serveHttp(host, { port: 0, auth: { allowUnauthenticated: true } });
    cleanups.push(() => served.close());
    expect(executorOf(host)).toBeDefined();
  });

  it('not a host without plugins', async () => {
    const { root, dispose } = await project([], { builtins: true });
    cleanups.push(dispose);
    const host = await createHost({ root, cache: true });
    cleanups.push(() => host.close());
    const served = await serveStdio(host, { stdin: new PassThrough(), stdout: new PassThrough() });
    cleanups.push(() => served.close());
    expect(executorOf(host)).toBeUndefined();
  });
});
