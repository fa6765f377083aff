/**
 * Shared by the example plugins' tests: each test loads one plugin through the real host, from a
 * throwaway project folder that holds a copy of just that plugin. (The host skips plugin folders
 * whose name starts with `_`, so this folder is never taken for a plugin.)
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type HostOptions, type PluginSettings, resultText, type ToolHost } from '@toolhost/host';
import type { HiddenToolPlanEntry, ToolResult } from '@toolhost/plugin-sdk';

export type { PluginSettings };

/** The `plugins/` folder of the checkout. */
export const PLUGINS_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export interface TestProject {
  /** The project root: `plugins/<id>/` lies under it, and fs grants resolve against it. */
  readonly root: string;
  /** The copy of the plugin's folder. */
  readonly pluginDir: string;
  /** Starts a host on this project; it is closed by {@link TestProject.dispose}. */
  host(options?: HostSetup): Promise<ToolHost>;
  /** Closes every host started here and deletes the folder. */
  dispose(): Promise<void>;
}

export interface HostSetup {
  /** `plugins.<id>` of the plugin under test. */
  readonly settings?: PluginSettings;
  /** Settings of other plugins (rarely needed). */
  readonly otherSettings?: Readonly<Record<string, PluginSettings>>;
  /** Environment the host sees, for availability and for granted `ctx.env` values. */
  readonly env?: Readonly<Record<string, string>>;
  readonly customTools?: HostOptions['customTools'];
}

/** Copies `plugins/<id>/` (without its tests) into a new temporary project. */
export async function projectWith(id: string): Promise<TestProject> {
  const root = await mkdtemp(path.join(tmpdir(), `toolhost-${id}-`));
  const source = path.join(PLUGINS_DIR, id);
  const pluginDir = path.join(root, 'plugins', id);
  await cp(source, pluginDir, {
    recursive: true,
    filter: (file) => path.relative(source, file).split(path.sep)[0] !== 'test',
  });
  const hosts: ToolHost[] = [];
  return {
    root,
    pluginDir,
    async host(setup = {}) {
      const host = await createHost({
        root,
        builtins: false,
        availability: { env: { ...setup.env } },
        ...(setup.customTools === undefined ? {} : { customTools: setup.customTools }),
        sandbox: 'inline',
        cache: false,
        plugins: {
          ...setup.otherSettings,
          ...(setup.settings === undefined ? {} : { [id]: setup.settings }),
        },
      });
      hosts.push(host);
      return host;
    },
    async dispose() {
      await Promise.all(hosts.splice(0).map((host) => host.close()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The text a model would read from a result. */
export function textOf(result: ToolResult): string {
  return resultText(result);
}

/** Names of the visible tools of a host's plan. */
export function visibleNames(host: ToolHost): string[] {
  return host.plan().visible.map((entry) => entry.descriptor.name);
}

/** The hidden entry of `name` in a host's plan, or undefined. */
export function hiddenEntry(host: ToolHost, name: string): HiddenToolPlanEntry | undefined {
  return host.plan().hidden.find((entry) => entry.descriptor.name === name);
}
