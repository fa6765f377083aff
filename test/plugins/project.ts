import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type HostOptions, type ToolHost } from '@toolhost/host';
import { afterEach } from 'vitest';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins');

/** A temp project whose `plugins/` holds copies of the named fixture plugins. */
export async function project(
  names: readonly string[],
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-plugins-'));
  await mkdir(path.join(root, 'plugins'));
  for (const name of names)
    await cp(path.join(fixtures, name), path.join(root, 'plugins', name), { recursive: true });
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/**
 * A host over a project: no built-ins, an empty environment, plugins in the inline sandbox and no
 * on-disk cache, unless `options` says otherwise.
 */
export function hostFor(root: string, options: Omit<HostOptions, 'root'> = {}): Promise<ToolHost> {
  return createHost({
    root,
    builtins: false,
    availability: { env: {} },
    sandbox: 'inline',
    cache: false,
    ...options,
  });
}

/**
 * Temp projects and hosts that the test file's `afterEach` closes (hosts first, newest first) and
 * removes, whatever the test did: `project` and `hostFor` with the cleanup done for you.
 */
export function useHosts(): {
  project(names: readonly string[]): Promise<{ root: string }>;
  hostFor(...args: Parameters<typeof hostFor>): Promise<ToolHost>;
} {
  const hosts: ToolHost[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0).reverse()) await host.close();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return {
    async project(names) {
      const made = await project(names);
      cleanups.push(made.cleanup);
      return { root: made.root };
    },
    async hostFor(...args) {
      const host = await hostFor(...args);
      hosts.push(host);
      return host;
    },
  };
}

export function textOf(result: { content: readonly { type: string; text?: string }[] }): string {
  return result.content.map((block) => block.text ?? '').join('\n');
}
