import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SHARED_MODULES } from '../../../src/sandbox/isolate-script.js';
import type { BundleOutcome } from '../../../src/sources/plugins/build-context.js';
import type { BuildJob, FromBuildWorker, ToBuildWorker } from '../../../src/sources/plugins/build-ipc.js';
import { DEFAULT_BUILD_LIMITS } from '../../../src/sources/plugins/build-limits.js';
import { BuildService } from '../../../src/sources/plugins/build-service.js';
import { builtEntry } from '../../../src/util/package.js';

/** vi.waitFor gives up after 1 s by default: a loaded machine (two test files at once) can take longer. */
const WAIT = { timeout: 60_000, interval: 20 };

/**
 * Stand-in build workers: the service must hold its time limit whatever the worker does, as a
 * real one stuck in esbuild (a glob listing the whole disk) does nothing that a callback could see.
 */
const WORKERS = {
  /** Never answers. */
  silent: `import { parentPort } from 'node:worker_threads';
parentPort.on('message', () => {});
`,
  /**
   * Never answers a build of a "hostile" plugin; answers the others once a file \`go\` exists beside
   * the script (the test writes it after the hostile build has timed out, so only a worker started
   * after that can have answered).
   */
  'waits-for-go': `import { existsSync, watch } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const go = new URL('./go', import.meta.url);
const waiting = [];
const answer = (m) => parentPort.postMessage({ t: 'built', id: m.id, outcome: { ok: true, code: '// ' + m.entry, inputs: [] } });
watch(new URL('./', import.meta.url), () => {
  if (existsSync(go)) for (const m of waiting.splice(0)) answer(m);
});
parentPort.on('message', (m) => {
  if (m.t !== 'build' || m.entry.includes('hostile')) return;
  if (existsSync(go)) answer(m);
  else waiting.push(m);
});
`,
  /** Answers every build with the data it was started with, as JSON in the bundle's code. */
  'says-its-data': `import { parentPort, workerData } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.t === 'build') parentPort.postMessage({ t: 'built', id: m.id, outcome: { ok: true, code: JSON.stringify(workerData ?? null), inputs: [] } });
});
`,
} as const;

const job = (entry: string, timeoutMs: number): BuildJob => ({
  entry,
  root: path.dirname(entry),
  limits: { ...DEFAULT_BUILD_LIMITS, timeoutMs },
  once: true,
});

describe('the build service', () => {
  const dirs: string[] = [];
  const services: BuildService[] = [];

  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function serviceWith(worker: keyof typeof WORKERS): Promise<{ service: BuildService; dir: string }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'toolhost-build-service-'));
    dirs.push(dir);
    const entry = path.join(dir, `${worker}.mjs`);
    await writeFile(entry, WORKERS[worker]);
    const service = new BuildService(entry);
    services.push(service);
    return { service, dir };
  }

  it('fails a build that runs out of time at its deadline, naming the limit, and replaces the worker', async () => {
    const { service } = await serviceWith('silent');
    const outcome = await service.build(1, job('/plugins/slow/index.ts', 100));
    expect(outcome).toEqual({
      ok: false,
      error: 'the build took longer than 0.1 s (a plugin build may read 2000 files and 32 MB, in 0.1 s)',
      inputs: [],
    });
    expect(service.restarts).toBe(1);
  });

  it('lets the builds of other plugins in flight in a replaced worker finish there, and they succeed', async () => {
    const { service, dir } = await serviceWith('waits-for-go');
    const hostile = service.build(1, job('/plugins/hostile/index.ts', 100));
    const innocent = service.build(2, job('/plugins/innocent/index.ts', 60_000));
    expect((await hostile).ok).toBe(false);
    await writeFile(path.join(dir, 'go'), '');
    expect(await innocent).toEqual({ ok: true, code: '// /plugins/innocent/index.ts', inputs: [] });
    expect(service.restarts).toBe(1);
  });

  it('lets a healthy build in flight finish where it runs while hostile builds beside it time out one after another', async () => {
    const { service, dir } = await serviceWith('waits-for-go');
    // Three timeouts used to restart the worker three times under the healthy build, which then
    // failed as "interrupted 3 times" although nothing was wrong with it.
    const hostile = [100, 150, 200].map((ms, i) =>
      service.build(i + 1, job(`/plugins/hostile${i}/index.ts`, ms)),
    );
    const innocent = service.build(9, job('/plugins/innocent/index.ts', 60_000));
    for (const outcome of await Promise.all(hostile)) expect(outcome.ok).toBe(false);
    await writeFile(path.join(dir, 'go'), '');
    expect(await innocent).toEqual({ ok: true, code: '// /plugins/innocent/index.ts', inputs: [] });
    expect(service.restarts).toBe(1);
  });

  it('ends an idle worker (and its esbuild service) once no build is in flight and no context is kept', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'toolhost-build-service-'));
    dirs.push(dir);
    const entry = path.join(dir, 'answers.mjs');
    await writeFile(
      entry,
      `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (m) => { if (m.t === 'build') parentPort.postMessage({ t: 'built', id: m.id, outcome: { ok: true, code: '', inputs: [] } }); });
`,
    );
    const service = new BuildService(entry, { idleMs: 0 });
    services.push(service);
    await service.build(1, { ...job('/plugins/kept/index.ts', 60_000), once: false });
    await service.build(2, job('/plugins/once/index.ts', 60_000));
    // A context is kept: the worker stays.
    expect(service.running).toBe(true);
    service.dispose(1);
    await vi.waitFor(() => expect(service.running).toBe(false), WAIT);
  });

  it("starts each worker with every shared module's export names, so the worker imports none of them", async () => {
    const { service } = await serviceWith('says-its-data');
    const outcome = await service.build(1, job('/plugins/p/index.ts', 60_000));
    if (!outcome.ok) throw new Error(outcome.error);
    const given = new Map(JSON.parse(outcome.code).sharedExports as [string, string[]][]);
    expect([...given.keys()]).toEqual([...SHARED_MODULES]);
    // The names the worker would otherwise read by importing each module (in this thread, here).
    for (const name of SHARED_MODULES)
      expect(given.get(name)).toEqual(Object.keys(await import(name)).sort());
    expect(given.get('zod')).toContain('object');
  });

  it('fails builds with the reason when the worker cannot start, and never hangs', async () => {
    const service = new BuildService(path.join(tmpdir(), 'toolhost-no-such-worker.mjs'));
    services.push(service);
    const outcome = await service.build(1, job('/plugins/p/index.ts', 60_000));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.error).toMatch(
        /^the build was interrupted 3 times: the build worker failed: Cannot find module/,
      );
  });

  it('close() fails the builds in flight', async () => {
    const { service } = await serviceWith('silent');
    const pending = service.build(1, job('/plugins/p/index.ts', 60_000));
    await service.close();
    expect(await pending).toEqual({ ok: false, error: 'the build service was closed', inputs: [] });
  });
});

describe('the build worker', () => {
  it('binds shared imports by the export names it is started with, not by importing the modules', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'toolhost-build-worker-'));
    // Every module as it is, but zod as given here: `marker` is no export of the real zod, `z` is.
    const sharedExports = await Promise.all(
      SHARED_MODULES.map(async (name) => [
        name,
        name === 'zod' ? ['marker'] : Object.keys(await import(name)),
      ]),
    );
    const worker = new Worker(builtEntry('sources/plugins/build-worker.js'), {
      execArgv: [],
      workerData: { sharedExports },
    });
    try {
      const entry = path.join(dir, 'index.ts');
      await writeFile(entry, "import { marker } from 'zod';\nexport default { marker };\n");
      const built = (id: number) =>
        new Promise<BundleOutcome>((resolve) =>
          worker.on('message', (m: FromBuildWorker) => {
            if (m.id === id) resolve(m.outcome);
          }),
        );
      const first = built(1);
      worker.postMessage({ t: 'build', id: 1, key: 1, ...job(entry, 60_000) } satisfies ToBuildWorker);
      const outcome = await first;
      if (!outcome.ok) throw new Error(outcome.error);
      expect(outcome.code).toContain('pick("zod", "marker")');
      await writeFile(entry, "import { z } from 'zod';\nexport default { z };\n");
      const second = built(2);
      worker.postMessage({ t: 'build', id: 2, key: 2, ...job(entry, 60_000) } satisfies ToBuildWorker);
      const refused = await second;
      expect(refused.ok).toBe(false);
      if (!refused.ok)
        expect(refused.error).toMatch(/No matching export in "toolhost-shared:zod" for import "z"/);
    } finally {
      await worker.terminate();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
