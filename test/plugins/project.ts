import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type HostOptions, type PluginsOptions, type ToolHost } from '@toolhost/host';
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

/** A host over a project, with plugins loaded in the given sandbox mode and no on-disk cache. */
export function hostFor(
  root: string,
  plugins: PluginsOptions = {},
  options: Omit<HostOptions, 'root' | 'plugins'> = {},
): Promise<ToolHost> {
  return createHost({
    root,
    builtins: false,
    availability: { env: {} },
    ...options,
    plugins: { sandbox: 'inline', cache: false, ...plugins },
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
