import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { preludeFingerprint } from '../../src/sandbox/isolate-script.js';

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
