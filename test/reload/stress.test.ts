import { rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { internalsOf } from '@toolhost/host/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginSource, watchedProject } from './harness.js';

type Project = Awaited<ReturnType<typeof watchedProject>>;

const EDITS = 20;
const CALLERS = 4;

describe.each(['inline', 'process'] as const)('calls during 20 edits (%s sandbox)', (sandbox) => {
  let project: Project;
  /** Ends the callers: when the edits are done, or when the test failed or timed out first. */
  let stop = false;
  let callers: Promise<void>[] = [];

  afterEach(async () => {
    // Callers still looping against a closed host would spin on its refusals for good.
    stop = true;
    await Promise.all(callers);
    await project.close();
  });

  it('gives every call exactly one result, old or new version, and leaks no isolate', async () => {
    project = await watchedProject({ sandbox });
    const source = (version: number) =>
      pluginSource('busy', 'busy_tool', `'v${version}'`).replace('reload test tool', `version ${version}`);
    await project.writePlugin('busy', source(0));
    await project.start({});

    let committed = 0; // the newest version whose swap has happened
    stop = false;
    const results: { startedAt: number; text: string; isError: boolean }[] = [];
    let started = 0;
    callers = Array.from({ length: CALLERS }, async () => {
      while (!stop) {
        const startedAt = committed;
        started += 1;
        const result = await project.call('busy_tool');
        results.push({ startedAt, ...result });
        // A call may finish without leaving the microtask queue (a quick tool through sync
        // entries, a refusal): yield, as callers arriving over I/O do, so the watcher, the builds
        // and the test's own time limit get their turn.
        await new Promise((resolve) => setImmediate(resolve));
      }
    });

    for (let version = 1; version <= EDITS; version++) {
      const swapped = project.nextChange((c) => c.changed.includes('busy_tool'));
      // Atomically (written beside the project, then renamed into place): this test is about swaps
      // under calls; a save in place can show the watcher an empty file for an instant, which
      // half-saved.test.ts covers.
      const staged = path.join(project.root, `busy-${version}.ts`);
      await writeFile(staged, source(version));
      await rename(staged, path.join(project.root, 'plugins', 'busy', 'index.ts'));
      await swapped;
      committed = version;
    }
    stop = true;
    await Promise.all(callers);

    expect(results.length).toBe(started);
    expect(results.filter((r) => r.isError)).toEqual([]);
    for (const r of results) {
      const version = Number(/^v(\d+)$/.exec(r.text)?.[1]);
      // Old or new, never older than what was live when the call started.
      expect(version).toBeGreaterThanOrEqual(r.startedAt);
      expect(version).toBeLessThanOrEqual(EDITS);
    }
    expect(new Set(results.map((r) => r.text)).size).toBeGreaterThan(1); // calls really spanned edits
    expect(await project.call('busy_tool')).toEqual({ text: `v${EDITS}`, isError: false });
    expect(await internalsOf(project.host).sandbox?.isolateCount()).toBe(1);
  });
});
