import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { SANDBOX_INDEPENDENT } from '../../vitest.config.js';
import { HEALTHY_SOURCE, REPO_DIR, SECURITY_SANDBOX, useHarness } from './helpers.js';

describe('the security suite’s sandbox', () => {
  const h = useHarness();

  it('holds the plugins in the sandbox this run names (inline, then process in the second run)', async () => {
    const { host } = await h.start({ plugins: { healthy: HEALTHY_SOURCE } });
    expect(internalsOf(host).sandbox?.mode).toBe(SECURITY_SANDBOX);
    expect(SECURITY_SANDBOX).toBe(process.env.TOOLHOST_SECURITY_SANDBOX === 'process' ? 'process' : 'inline');
  });

  it('the second run skips only files that never hold a plugin in the suite’s sandbox', async () => {
    const files = (await readdir(path.join(REPO_DIR, 'test/security'), { recursive: true }))
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `test/security/${file}`);
    for (const file of SANDBOX_INDEPENDENT) expect(files, `${file} is listed but missing`).toContain(file);
    for (const file of files) {
      const source = await readFile(path.join(REPO_DIR, file), 'utf8');
      const usesSuiteSandbox = /\bSECURITY_SANDBOX\b/.test(source);
      const usesHarness = /\buseHarness\(/.test(source);
      if (SANDBOX_INDEPENDENT.includes(file)) {
        expect(usesSuiteSandbox, `${file} names SECURITY_SANDBOX: it must run in both projects`).toBe(false);
      } else {
        expect(usesSuiteSandbox || usesHarness, `${file} never uses the suite's sandbox: list it`).toBe(true);
      }
    }
  });
});
