import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { preludeFingerprint } from '../../src/sandbox/isolate-script.js';

const run = promisify(execFile);
/** The host package's build (what `npm test` builds first). */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

describe('the prelude fingerprint the plugin cache keys on', () => {
  const roots: string[] = [];

  afterEach(async () => {
    await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
  });

  /** A built SDK and a zod package, as the prelude reads them. */
  async function packages() {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-prelude-'));
    roots.push(root);
    const sdk = path.join(root, 'plugin-sdk');
    const zod = path.join(root, 'zod');
    await mkdir(path.join(sdk, 'dist', 'runtime'), { recursive: true });
    await mkdir(zod, { recursive: true });
    await writeFile(path.join(sdk, 'dist', 'index.js'), 'export const a = 1;\n');
    await writeFile(path.join(sdk, 'dist', 'runtime', 'index.js'), 'globalThis.x = 1;\n');
    await writeFile(path.join(zod, 'package.json'), '{"version":"4.6.7"}');
    return { sdk, zod };
  }

  it('changes when a built SDK file or the zod version changes, so no stale bundle or manifest is served', async () => {
    const { sdk, zod } = await packages();
    const first = preludeFingerprint(sdk, zod);
    expect(preludeFingerprint(sdk, zod)).toBe(first);
    await writeFile(path.join(sdk, 'dist', 'runtime', 'index.js'), 'globalThis.x = 2;\n');
    const afterSdk = preludeFingerprint(sdk, zod);
    expect(afterSdk).not.toBe(first);
    await writeFile(path.join(zod, 'package.json'), '{"version":"4.6.8"}');
    expect(preludeFingerprint(sdk, zod)).not.toBe(afterSdk);
  });

  it('ignores what the prelude is not built from (type declarations, source maps)', async () => {
    const { sdk, zod } = await packages();
    const first = preludeFingerprint(sdk, zod);
    await writeFile(path.join(sdk, 'dist', 'index.d.ts'), 'export declare const a: 1;\n');
    await writeFile(path.join(sdk, 'dist', 'index.js.map'), '{}');
    expect(preludeFingerprint(sdk, zod)).toBe(first);
  });
});

describe('building preludes', () => {
  it('stops its esbuild service once no prelude is building, and starts it again for the next', async () => {
    // In a process of its own, whose only esbuild is the preludes' (the test runner has others).
    const script = `
      import { readdirSync, readFileSync } from 'node:fs';
      import { loadPreludeScript } from ${JSON.stringify(pathToFileURL(path.join(DIST, 'sandbox/isolate-script.js')).href)};
      const esbuildChildren = () => readdirSync('/proc').filter((pid) => {
        try {
          const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
          const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return Number(ppid) === process.pid && state !== 'Z' && readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes('--service');
        } catch { return false; }
      }).length;
      // The service is stopped with a SIGTERM; on a loaded machine it takes a moment to exit. Its
      // exit is esbuild's to see, not ours: polled, for 5 s at most.
      const gone = async () => {
        for (let i = 0; i < 500 && esbuildChildren() > 0; i++) await new Promise((r) => setTimeout(r, 10));
        return esbuildChildren();
      };
      const base = await loadPreludeScript('base');
      const afterBase = await gone();
      const full = await loadPreludeScript('full');
      console.log(JSON.stringify({ base: base.length, full: full.length, afterBase, afterFull: await gone() }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    const seen = JSON.parse(stdout) as { base: number; full: number; afterBase: number; afterFull: number };
    expect(seen.base).toBeGreaterThan(100_000);
    // The second prelude was built after the service had gone: it started again.
    expect(seen.full).toBeGreaterThan(seen.base);
    expect([seen.afterBase, seen.afterFull]).toEqual([0, 0]);
  });
});
