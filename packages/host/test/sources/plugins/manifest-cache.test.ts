/**
 * The manifest cache keeps what checking a describe's reply concluded, so a start with unchanged
 * plugins neither describes nor checks them again. These tests pin that a start reuses it, that
 * what it keeps was checked (never the plugin's raw words), and that a file which is not exactly
 * what was written is never read: the plugin is described and checked again, and the file mended.
 */

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { cacheWrites } from '../../../src/sources/plugins/cache-files.js';
import { manifestRules } from '../../../src/sources/plugins/manifest.js';
import { ManifestCache } from '../../../src/sources/plugins/manifest-cache.js';
import { PluginSet } from '../../../src/sources/plugins/plugin-set.js';
import type { PluginLoad } from '../../../src/sources/plugins/types.js';
import { pluginProject, pluginSource } from './plugin-fixtures.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the manifest cache', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * A project with `plugins`, and a start that counts the describes it makes. `reply` may change
   * what the (real) describe answered before the host sees it: a plugin's isolate answers what
   * its code makes it answer.
   */
  async function project(plugins: Record<string, string>, reply?: (raw: unknown) => unknown) {
    const { root, sandbox } = await pluginProject(plugins, cleanups);
    const counted = { describes: 0 };
    const counting = new Proxy(sandbox, {
      get(target, property) {
        if (property === 'describe')
          return async (...args: Parameters<Sandbox['describe']>) => {
            counted.describes += 1;
            const outcome = await target.describe(...args);
            return reply === undefined || outcome.kind !== 'reply'
              ? outcome
              : { ...outcome, reply: reply(outcome.reply) };
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const manifests = path.join(root, '.toolhost', 'cache', 'manifests');
    /** One start (a fresh plugin set, as a new process makes), its caches on disk after it. */
    const start = async (): Promise<PluginLoad[]> => {
      const set = new PluginSet(path.join(root, 'plugins'), root, true);
      const loads = await set.refresh({ root, sandbox: counting });
      for (const load of loads) load.lease?.release();
      await set.dispose();
      cacheWrites.flush();
      return loads;
    };
    const files = () => readdirSync(manifests).map((name) => path.join(manifests, name));
    return { start, counted, files };
  }

  const toolsOf = (loads: readonly PluginLoad[]) =>
    loads.map((l) => l.source.tools.map((t) => [t.descriptor.name, t.descriptor.description]));

  it('serves a second start without describing an unchanged plugin, with the same tools', async () => {
    const { start, counted, files } = await project({ one: pluginSource('one'), two: pluginSource('two') });
    const first = await start();
    expect(first.map((l) => l.report.status)).toEqual(['loaded', 'loaded']);
    expect(counted.describes).toBe(2);
    expect(files()).toHaveLength(2);

    const second = await start();
    expect(counted.describes).toBe(2);
    expect(second.map((l) => l.report.status)).toEqual(['loaded', 'loaded']);
    expect(toolsOf(second)).toEqual(toolsOf(first));
    expect(second.map((l) => l.report.manifest)).toEqual(first.map((l) => l.report.manifest));
  });

  it('keeps the checked manifest, with its sum on the first line, not the reply as the plugin sent it', async () => {
    // A key the check drops is not in the file: what is kept is the check's output.
    const { start, files } = await project({ one: pluginSource('one') }, (raw) => {
      const reply = raw as { ok: true; manifest: { tools: { inputSchema: Record<string, unknown> }[] } };
      delete reply.manifest.tools[0]?.inputSchema.type;
      return reply;
    });
    await start();
    const [file] = files();
    const text = readFileSync(file as string, 'utf8');
    const [sum, json] = [text.slice(0, text.indexOf('\n')), text.slice(text.indexOf('\n') + 1)];
    expect(sum).toBe(sha256(json));
    const kept = JSON.parse(json);
    expect(kept.ok).toBe(true);
    // The check sets a missing `type: "object"`; the plugin's reply had none.
    expect(kept.manifest.tools[0].inputSchema.type).toBe('object');
  });

  it('keeps a refusal too: a reply that fails the check fails the next start the same way, undescribed', async () => {
    const { start, counted, files } = await project({ one: pluginSource('one') }, (raw) => {
      const reply = raw as { ok: true; manifest: { tools: { name: string }[] } };
      for (const tool of reply.manifest.tools) tool.name = 'no spaces allowed';
      return reply;
    });
    const [first] = await start();
    expect(first?.report.status).toBe('failed');
    expect(first?.report.diagnostics[0]).toMatch(
      /^plugin "one" failed to load: the plugin's description is invalid: .*tool names use/s,
    );
    const kept = JSON.parse(
      readFileSync(files()[0] as string, 'utf8')
        .split('\n')
        .slice(1)
        .join('\n'),
    );
    expect(kept.ok).toBe(false);

    const [second] = await start();
    expect(counted.describes).toBe(1);
    expect(second?.report.status).toBe('failed');
    expect(second?.report.diagnostics).toEqual(first?.report.diagnostics);
  });

  it('does not keep a reply in which the plugin reports its own failure', async () => {
    const { start, counted } = await project({ one: pluginSource('one', "throw new Error('no config');") });
    const [first] = await start();
    expect(first?.report.status).toBe('failed');
    expect(first?.report.diagnostics[0]).toContain('no config');
    await start();
    expect(counted.describes).toBe(2);
  });

  const damages: [string, (text: string) => string][] = [
    ['cut short', (text) => text.slice(0, text.length - 20)],
    // Still JSON, and still a manifest that passes the check: only the sum tells.
    ['edited by hand', (text) => text.replace('test tool', 'a tool the plugin never described')],
    ['written as bare JSON (an older toolhost)', (text) => text.slice(text.indexOf('\n') + 1)],
    ['empty', () => ''],
    ['a sum alone', (text) => text.slice(0, 65)],
    // The right sum over a conclusion with no manifest (written by hand): a describe, not a TypeError.
    ['summed but no conclusion', () => `${sha256('{"ok":true}')}\n{"ok":true}`],
  ];
  for (const [how, damage] of damages) {
    it(`does not read a file ${how}: the plugin is described again and the file mended`, async () => {
      const { start, counted, files } = await project({ one: pluginSource('one') });
      const [first] = await start();
      const [file] = files();
      const intact = readFileSync(file as string, 'utf8');
      writeFileSync(file as string, damage(intact));

      const [second] = await start();
      expect(counted.describes).toBe(2);
      expect(second?.report.status).toBe('loaded');
      expect(second?.source.tools.map((t) => t.descriptor.description)).toEqual(['test tool']);
      expect(second?.report.manifest).toEqual(first?.report.manifest);
      expect(readFileSync(file as string, 'utf8')).toBe(intact);

      await start();
      expect(counted.describes).toBe(2);
    });
  }

  it('keys on the code of the check: conclusions of other checks are not read, its own are', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-manifest-rules-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const dir = path.join(root, '.toolhost', 'cache');
    const checked = {
      ok: true,
      manifest: { id: 'p', permissions: {}, tools: [], hooks: { before: false, after: false } },
    } as const;
    new ManifestCache(dir, 'checks-of-an-older-host').storeManifest('bundle', 'null', checked);
    cacheWrites.flush();
    expect(new ManifestCache(dir, 'checks-of-this-host').manifest('bundle', 'null')).toBeUndefined();
    expect(new ManifestCache(dir, 'checks-of-an-older-host').manifest('bundle', 'null')).toEqual(checked);
    // By default, the fingerprint of the check's own module: any change to it is a change of rules.
    const source = readFileSync(new URL('../../../src/sources/plugins/manifest.ts', import.meta.url));
    expect(manifestRules()).toBe(createHash('sha256').update(source).digest('hex'));
  });
});
