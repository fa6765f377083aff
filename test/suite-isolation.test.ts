import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OWN_MODULES } from '../vitest.config.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every test file of the suite, relative to the repository, with `/` separators. */
async function testFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const top of ['test', 'packages/host/test', 'packages/plugin-sdk/test', 'plugins']) {
    for (const file of await readdir(path.join(REPO, top), { recursive: true })) {
      const rel = `${top}/${file.split(path.sep).join('/')}`;
      if (rel.endsWith('.test.ts') && !rel.includes('/fixtures/') && !rel.includes('node_modules'))
        files.push(rel);
    }
  }
  return files;
}

describe('files that share a worker’s modules (vitest.config.ts, isolate: false)', () => {
  it('only the files listed in OWN_MODULES replace a module with vi.mock, and each listed file exists', async () => {
    const files = await testFiles();
    for (const file of OWN_MODULES) expect(files, `${file} is listed but missing`).toContain(file);
    for (const file of files) {
      const source = await readFile(path.join(REPO, file), 'utf8');
      if (/\bvi\.(?:mock|doMock)\(/.test(source)) {
        expect(OWN_MODULES, `${file} uses vi.mock: list it in OWN_MODULES`).toContain(file);
      }
    }
  });

  it('a file that fakes timers or registers OTel globals puts them back', async () => {
    for (const file of await testFiles()) {
      const source = await readFile(path.join(REPO, file), 'utf8');
      if (/\bvi\.useFakeTimers\(/.test(source)) {
        expect(source, `${file} fakes timers without vi.useRealTimers()`).toMatch(/\bvi\.useRealTimers\(/);
      }
      if (/\bsetGlobal(?:Tracer|Meter)Provider\(/.test(source)) {
        expect(source, `${file} registers OTel globals without disabling them`).toMatch(
          /\b(?:trace|metrics)\.disable\(/,
        );
      }
    }
  });
});
