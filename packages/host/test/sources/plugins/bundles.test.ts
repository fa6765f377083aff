/**
 * A plugin saved lately is rebuilt at its file event (`PluginBundles.touched`), while the
 * watcher's batch settles; the pass that follows takes that build only when nothing of the plugin
 * changed after it started. Real esbuild, in the build worker; the service counts its builds.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuildJob } from '../../../src/sources/plugins/build-ipc.js';
import { BuildService } from '../../../src/sources/plugins/build-service.js';
import type { BundleOutcome } from '../../../src/sources/plugins/bundle.js';
import { PluginBundles } from '../../../src/sources/plugins/bundles.js';
import { FileSurvey } from '../../../src/sources/plugins/cache.js';

/** Builds in no worker: each reads the entry when it starts; while `hold`, it ends on `release`. */
class HeldService extends BuildService {
  builds = 0;
  hold = false;
  readonly #held: (() => void)[] = [];

  override build(_key: number, job: BuildJob): Promise<BundleOutcome> {
    this.builds += 1;
    const outcome: BundleOutcome = { ok: true, code: readFileSync(job.entry, 'utf8'), inputs: [] };
    if (!this.hold) return Promise.resolve(outcome);
    return new Promise((resolve) => this.#held.push(() => resolve(outcome)));
  }

  release(): void {
    for (const done of this.#held.splice(0)) done();
  }
}

class CountingService extends BuildService {
  builds = 0;

  override build(key: number, job: BuildJob): Promise<BundleOutcome> {
    this.builds += 1;
    return super.build(key, job);
  }
}

/** A plugin whose bundle carries `version` (its default export is kept: the bundle registers it). */
const source = (version: string) => `export default { version: ${JSON.stringify(version)} };\n`;

describe('early builds of a plugin saved lately', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(service: BuildService = new CountingService()) {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-bundles-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const dir = path.join(root, 'p');
    await mkdir(dir);
    const entry = path.join(dir, 'index.ts');
    await writeFile(entry, source('v1'));
    cleanups.push(() => service.close());
    const bundles = new PluginBundles({ buildService: service });
    cleanups.push(() => bundles.dispose());
    const plugin = { id: 'p', dir, entry };
    let started = 0;
    const pass = async () => {
      const outcome = await bundles.bundle(plugin, true, new FileSurvey(), () => {
        started += 1;
      });
      if (!outcome.ok) throw new Error(outcome.error);
      return outcome.code;
    };
    return { entry, service: service as CountingService, bundles, pass, started: () => started };
  }

  it('starts the build at the event, and the pass takes it without building again', async () => {
    const { entry, service, bundles, pass, started } = await setup();
    expect(await pass()).toContain('"v1"');
    expect(service.builds).toBe(1);
    await writeFile(entry, source('v2'));
    bundles.touched('p');
    // Started at once, before any pass.
    expect(service.builds).toBe(2);
    expect(await pass()).toContain('"v2"');
    expect(service.builds).toBe(2);
    expect(started()).toBe(2);
  });

  it('builds again for the pass when an event came after the early build started', async () => {
    // Builds that read the entry when they start and end when released: the early build reads
    // v2, the file becomes v3 while it runs, and the pass must not take what it read.
    const service = new HeldService();
    const { entry, bundles, pass } = await setup(service);
    service.hold = false;
    await pass();
    service.hold = true;
    await writeFile(entry, source('v2'));
    bundles.touched('p');
    await writeFile(entry, source('v3'));
    bundles.touched('p');
    service.hold = false;
    const code = pass();
    service.release();
    expect(await code).toContain('"v3"');
  });

  it('starts nothing for a plugin with no incremental context (not saved lately)', async () => {
    const { service, bundles, pass } = await setup();
    bundles.touched('p');
    expect(service.builds).toBe(0);
    expect(await pass()).toContain('"v1"');
    expect(service.builds).toBe(1);
  });
});
