import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ToolPlan } from '@toolhost/plugin-sdk';
import { afterEach, beforeEach } from 'vitest';
import { createHost, type ToolHost } from '../../src/host/host.js';
import type { HostOptions } from '../../src/host/types.js';

export const CONFIG_FILE = 'toolhost.config.json';

/** A real temp project folder per test; every host started through it is closed afterwards. */
export function tempProject() {
  let dir = '';
  const hosts: ToolHost[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'toolhost-config-'));
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir(): string {
      return dir;
    },
    /** Writes a config file (a value as JSON, a string as is) and returns its absolute path. */
    async write(content: unknown, name: string = CONFIG_FILE): Promise<string> {
      const file = path.join(dir, name);
      await writeFile(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
      return file;
    },
    /** `createHost` rooted in the temp folder, without plugins unless asked. */
    async start(options: HostOptions = {}): Promise<ToolHost> {
      const host = await createHost({ root: dir, pluginsDir: false, ...options });
      hosts.push(host);
      return host;
    },
  };
}

/** What a promise rejected with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** `[name, reasons]` of each hidden tool, to assert why a tool is hidden. */
export function hiddenReasons(plan: ToolPlan): Map<string, string[]> {
  return new Map(plan.hidden.map((h) => [h.descriptor.name, h.diagnostics.map((d) => d.reason)]));
}

/** Names of the visible tools, sorted. */
export function visibleNames(plan: ToolPlan): string[] {
  return plan.visible.map((v) => v.descriptor.name).sort();
}
