/**
 * The plugin typings (`@toolhost/plugin-sdk/env`, used by the `new` scaffold's tsconfig and the
 * example plugins) declare exactly the sandbox's environment: its web globals type-check, and
 * Node's globals are flagged while typing rather than failing at run time.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginTsconfig } from '../../packages/host/src/cli/scaffold.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Type-checks `source` as `plugins/p/index.ts` under the tsconfig at `configFile`; the error lines. */
function check(configFile: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${configFile}`);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
}

// A type-check reads the SDK and zod declarations: seconds, not milliseconds.
const TSC_MS = 60_000;

describe('plugin typings', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-env-'));
    await symlink(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  async function plugin(name: string, body: string): Promise<string> {
    const dir = path.join(root, 'plugins', name);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'tsconfig.json'), pluginTsconfig());
    await writeFile(
      path.join(dir, 'index.ts'),
      `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';\nimport * as z from 'zod';\n${body}\n` +
        `export default definePlugin({ id: '${name}', tools: [defineTool({ name: '${name}_t', description: 'd', input: z.object({}), execute: () => 'ok' })] });\n`,
    );
    return path.join(dir, 'tsconfig.json');
  }

  it(
    "the scaffold's tsconfig accepts every web global the sandbox provides",
    async () => {
      const config = await plugin(
        'web',
        `
      const id = setTimeout((n: number) => console.log('tick', n), 10, 1);
      clearTimeout(id);
      clearInterval(setInterval(() => console.warn('x'), 5));
      queueMicrotask(() => console.error('later'));
      const url = new URL('/a?b=1', 'https://api.example.com');
      url.searchParams.append('c', '2');
      const form = new URLSearchParams({ q: 'x' });
      const bytes = new TextEncoder().encode(btoa('hi') + atob('aGk='));
      const text: string = new TextDecoder().decode(bytes);
      const uuid: string = crypto.randomUUID();
      crypto.getRandomValues(new Uint32Array(4));
      const copy = structuredClone({ when: new Date(), text, uuid });
      async function get(): Promise<unknown> {
        const response = await fetch(url, { method: 'POST', headers: new Headers({ a: 'b' }), body: form });
        return response.ok ? response.json() : response.headers.get('content-type');
      }
      void get; void copy;`,
      );
      expect(check(config)).toEqual([]);
    },
    TSC_MS,
  );

  it(
    'flags Node globals (process, require, Buffer, setImmediate, __dirname) while typing',
    async () => {
      const config = await plugin(
        'node',
        `
      export const a = process.env.HOME;
      export const b = require('node:fs');
      export const c = Buffer.from('x');
      setImmediate(() => {});
      export const d = __dirname;`,
      );
      const errors = check(config).join('\n');
      for (const name of ['process', 'require', 'Buffer', 'setImmediate', '__dirname']) {
        expect(errors).toContain(`Cannot find name '${name}'`);
      }
    },
    TSC_MS,
  );

  it(
    'the example plugins type-check against the sandbox environment alone',
    () => {
      expect(check(path.join(REPO, 'plugins', 'tsconfig.json'))).toEqual([]);
    },
    TSC_MS,
  );
});
