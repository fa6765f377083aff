import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCapabilityError } from '../../src/capabilities/errors.js';
import type { CapabilityProvider } from '../../src/capabilities/index.js';
import { live, makeProject, type Project, provider } from '../capabilities/helpers.js';

/** Every file under `dir` (links not followed), relative, with its content. */
async function tree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) Object.assign(out, await tree(path.join(dir, entry.name), rel));
    else if (entry.isFile()) out[rel] = await fs.readFile(path.join(dir, entry.name), 'utf8');
    else out[rel] = `-> ${await fs.readlink(path.join(dir, entry.name))}`;
  }
  return out;
}

describe('fs capability paths under generated junk', () => {
  let project: Project;
  let p: CapabilityProvider;
  let before: Record<string, string>;
  beforeAll(async () => {
    project = await makeProject();
    // Read on data/, read-write on out/; secret/ and everything outside are not granted.
    p = provider(
      project.root,
      { fs: { read: ['data'], write: ['out'] } },
      { fs: { read: ['data'], write: ['out'] } },
    );
    before = await tree(project.base);
  });
  afterAll(() => project.cleanup());

  it('answers with data from a granted root or a coded capability error, never anything else', async () => {
    const segment = fc.constantFrom(
      'data',
      'out',
      'secret',
      'sub',
      'a.txt',
      'b.txt',
      's.txt',
      'x.txt',
      '..',
      '.',
      '',
      'link-out',
      'link-secret',
      'link-dir',
      'dangling',
      'secret.txt',
      'DATA',
      '%2e%2e',
      '..\\',
      '\\',
      '~',
      'outside',
      'ｄａｔａ',
      '\u0000',
      'data\u0000',
      '\u202e',
      ' ',
      'con',
      project.outside,
      project.root,
    );
    const rawPath = fc
      .tuple(
        fc.boolean(),
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('/', '\\', '//'),
      )
      .map(([absolute, parts, sep]) => (absolute ? sep : '') + parts.join(sep));
    // Half the paths aim at the granted roots, so successes are exercised as well as refusals.
    const aimed = fc
      .tuple(
        fc.constantFrom('data', './data', 'out', 'out/', 'data/sub'),
        fc.constantFrom('a.txt', 'b.txt', 'x.txt', 'y.txt', ''),
      )
      .map(([dir, file]) => `${dir}/${file}`);
    const anyPath = fc.oneof(rawPath, aimed);
    const args = fc.oneof(
      anyPath.map((path) => ({ path })),
      fc.record({ path: anyPath, data: fc.string({ maxLength: 20 }) }),
      fc.anything({ maxDepth: 2 }),
    );
    const capability = fc.constantFrom(
      'fs.readFile',
      'fs.writeFile',
      'fs.readdir',
      'fs.stat',
      'fs.unlink',
      'fetch',
    );
    const readable = new Set(['alpha\n', 'beta\n']);
    const written = new Set<string>();
    const succeeded = new Map<string, number>();

    await fc.assert(
      fc.asyncProperty(capability, args, async (name, value) => {
        let answer: unknown;
        try {
          answer = await p.invoke(name, value, live());
        } catch (error) {
          expect(isCapabilityError(error), String(error)).toBe(true);
          return;
        }
        succeeded.set(name, (succeeded.get(name) ?? 0) + 1);
        if (name === 'fs.writeFile') written.add((value as { data: string }).data);
        if (name === 'fs.readFile') {
          expect(readable.has(answer as string) || written.has(answer as string), String(answer)).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );

    // The generator reaches the granted roots too, so the property is not vacuous.
    for (const name of ['fs.readFile', 'fs.writeFile', 'fs.readdir', 'fs.stat']) {
      expect(succeeded.get(name) ?? 0, name).toBeGreaterThan(0);
    }
    // Nothing outside out/ changed: not the sibling folder, not secret/, not data/.
    const after = await tree(project.base);
    for (const [file, content] of Object.entries(before)) {
      expect(after[file], file).toBe(content);
    }
    for (const file of Object.keys(after).filter((f) => !(f in before))) {
      expect(file.startsWith(path.join('project', 'out') + path.sep), file).toBe(true);
    }
  });
});
