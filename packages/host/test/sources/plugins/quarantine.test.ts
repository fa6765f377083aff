import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QUARANTINE_AFTER, Quarantine } from '../../../src/sources/plugins/quarantine.js';
import type { PluginLoad } from '../../../src/sources/plugins/types.js';

/** A loaded plugin as the registry sees it, with one tool and a hook. */
function loaded(id: string, fingerprint: string): PluginLoad {
  const lease = { pluginId: id, version: 1, release: () => {} };
  return {
    source: { kind: 'plugin', id, tools: [] },
    hooks: { name: `plugin:${id}` },
    report: {
      id,
      status: 'loaded',
      diagnostics: [],
      manifest: {
        id,
        permissions: {},
        hooks: { before: true, after: false },
        tools: [{ name: `${id}_tool`, description: 'd', inputSchema: { type: 'object' } }],
      },
    },
    lease,
    fingerprint,
  };
}

function crash(q: Quarantine, id: string, fingerprint: string, times = QUARANTINE_AFTER): boolean[] {
  return Array.from({ length: times }, () => q.recordCrash(id, fingerprint, 'died (signal SIGABRT)'));
}

describe('Quarantine', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('starts on the third death charged to the same code, and says so once', () => {
    const q = new Quarantine(undefined);
    expect(crash(q, 'p', 'f1')).toEqual([false, false, true]);
    expect(q.recordCrash('p', 'f1', 'again')).toBe(false);
    expect(q.reason('p', 'f1')).toMatch(
      /^plugin "p" is quarantined: it crashed the executor process 3 times/,
    );
    // Other code of the same plugin is not quarantined.
    expect(q.reason('p', 'f2')).toBeUndefined();
  });

  it('counts deaths per fingerprint: a change starts the count again', () => {
    const q = new Quarantine(undefined);
    crash(q, 'p', 'f1', 2);
    expect(crash(q, 'p', 'f2', 2)).toEqual([false, false]);
    expect(q.reason('p', 'f2')).toBeUndefined();
  });

  it('hides the tools with `quarantined`, drops the hooks and keeps the lease', () => {
    const q = new Quarantine(undefined);
    crash(q, 'p', 'f1');
    const load = loaded('p', 'f1');
    const [applied] = q.apply([load]);
    expect(applied?.report.status).toBe('quarantined');
    expect(applied?.source.tools).toEqual([]);
    expect(applied?.source.unavailable?.map((e) => [e.descriptor.name, e.diagnostics[0]?.reason])).toEqual([
      ['p_tool', 'quarantined'],
    ]);
    expect(applied?.hooks).toBeUndefined();
    expect(applied?.lease).toBe(load.lease);
    // Unchanged when not quarantined.
    const other = loaded('o', 'f1');
    expect(q.apply([other])[0]).toBe(other);
  });

  it('is lifted when the plugin changes or goes, kept when it reloads unchanged, all lifted on request', () => {
    const q = new Quarantine(undefined);
    for (const id of ['same', 'edited', 'gone', 'broken']) crash(q, id, 'f1');
    const broken: PluginLoad = {
      source: { kind: 'plugin', id: 'broken', tools: [] },
      report: { id: 'broken', status: 'failed', diagnostics: ['does not build'] },
    };
    const lifted = q.lift([loaded('same', 'f1'), loaded('edited', 'f2'), broken], false);
    expect(lifted.sort()).toEqual(['edited', 'gone']);
    expect([...q.records().keys()].sort()).toEqual(['broken', 'same']);
    expect(q.lift([loaded('same', 'f1'), broken], true).sort()).toEqual(['broken', 'same']);
    expect(q.records().size).toBe(0);
  });

  it('persists across instances, and ignores a file it cannot read', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'toolhost-quarantine-'));
    const file = path.join(dir, '.toolhost', 'quarantine.json');
    const first = new Quarantine(file);
    await first.open();
    crash(first, 'p', 'f1');
    const second = new Quarantine(file);
    await second.open();
    expect(second.reason('p', 'f1')).toBe(first.reason('p', 'f1'));
    second.lift([], false);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, plugins: {} });

    const junk = path.join(dir, 'junk.json');
    await writeFile(junk, '{"version":1,"plugins":{"p":{"crashes":"x"}}}');
    const third = new Quarantine(junk);
    await third.open();
    expect(third.records().size).toBe(0);
  });
});
