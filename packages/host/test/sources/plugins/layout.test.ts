import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The plugin loader's parts, each with one owner: these tests keep the loader from growing back
 * into files that call each other in circles (a closure handed to a file that calls back, one
 * cache read from two files, a failed-load record built in three places, quarantine in five).
 */
const SRC = path.resolve(import.meta.dirname, '../../../src');
const PLUGINS = path.join(SRC, 'sources/plugins');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The files under src/ (as paths relative to it) whose text matches `pattern`. */
function filesMatching(pattern: RegExp, dir = SRC): string[] {
  return sourceFiles(dir)
    .filter((file) => pattern.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
    .sort();
}

describe('the plugin loader', () => {
  it('has one owner of bundling and of the bundle cache (bundles.ts)', () => {
    expect(filesMatching(/(?<!function )\b(?:bundlePlugin|createIncrementalBundler|BundleCache)\(/)).toEqual([
      'sources/plugins/bundles.ts',
    ]);
  });

  it('keeps the quarantine in one place: only the plugin source uses it', () => {
    expect(filesMatching(/from '[./]*\/?quarantine\.js'/)).toEqual(['sources/plugins/source.ts']);
  });

  it('builds the record of a load that offers no tool in one function (load.ts)', () => {
    expect(filesMatching(/\bhiddenEntries\(/, PLUGINS)).toEqual([
      'sources/plugins/load.ts',
      'sources/plugins/plugin-tools.ts',
    ]);
    expect(filesMatching(/status: '(?:failed|loading|disabled|quarantined)'/, PLUGINS)).toEqual([]);
  });

  it('names its files for what they hold (no manager.ts that holds no manager)', () => {
    expect(readdirSync(PLUGINS)).not.toContain('manager.ts');
  });
});
