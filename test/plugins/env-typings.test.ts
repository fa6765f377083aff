/**
 * The plugin typings (`@toolhost/plugin-sdk/env`, used by the `new` scaffold's tsconfig and the
 * example plugins) declare exactly the sandbox's environment: its web globals type-check, and
 * Node's globals are flagged while typing rather than failing at run time. The type checks
 * themselves are compiles, not tests: `npm test` runs `tsc -p test/types/plugin-env` (web-globals.ts,
 * node-globals.ts with one `@ts-expect-error` per Node global) and `tsc -p plugins` (the examples
 * against the sandbox environment alone). This file pins what those compiles stand on.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pluginTsconfig } from '../../packages/host/src/cli/scaffold.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = path.join(REPO, 'test/types/plugin-env');
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

describe('plugin typings', () => {
  it("the type tests compile under the scaffold's own tsconfig", async () => {
    expect(await readJson(path.join(TYPES, 'tsconfig.json'))).toEqual(JSON.parse(pluginTsconfig()));
  });

  it('the Node-globals type test expects an error for each of process, require, Buffer, setImmediate, __dirname', async () => {
    const lines = (await readFile(path.join(TYPES, 'node-globals.ts'), 'utf8')).split('\n');
    for (const name of ['process', 'require', 'Buffer', 'setImmediate', '__dirname']) {
      const at = lines.findIndex((line) => !line.startsWith('//') && line.includes(name));
      expect(at, `no line uses ${name}`).toBeGreaterThan(0);
      expect(lines[at - 1], `the line using ${name}`).toMatch(/^\/\/ @ts-expect-error /);
    }
  });

  it('the example plugins are checked against the sandbox environment alone', async () => {
    const config = (await readJson(path.join(REPO, 'plugins/tsconfig.json'))) as {
      compilerOptions: { types?: string[]; lib?: string[] };
    };
    expect(config.compilerOptions.types).toEqual(['@toolhost/plugin-sdk/env']);
    expect(config.compilerOptions.lib).toEqual(['ES2022']);
  });

  it('npm run check runs both compiles, and npm test runs check before vitest', async () => {
    const { scripts } = (await readJson(path.join(REPO, 'package.json'))) as {
      scripts: Record<string, string>;
    };
    const check = scripts.check ?? '';
    const test = scripts.test ?? '';
    expect(check).toContain('tsc -p test/types/plugin-env');
    expect(check).toContain('tsc -p plugins');
    expect(test).toContain('npm run check');
    expect(test.indexOf('npm run check')).toBeLessThan(test.indexOf('vitest run'));
  });
});
