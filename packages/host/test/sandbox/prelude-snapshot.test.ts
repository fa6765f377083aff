/**
 * Plugin isolates start from a V8 snapshot of the prelude (runtime, SDK, zod) that this process
 * made. A snapshot is taken in a context V8 has not finished (no WebAssembly, SharedArrayBuffer,
 * Error.stackTraceLimit, …: V8 adds them to each context it deserializes), holds no host callback,
 * and repeats whatever was drawn while it was taken. These tests pin that an isolate made from it
 * is the isolate an evaluated prelude gives: same globals, WebAssembly gone again, no setup entry
 * left, its own randomness, a working zod; and that a prelude V8 cannot snapshot falls back to the
 * code cache.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { CallReply, CallRequest, DescribeReply } from '@toolhost/plugin-sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/config/limits.js';
import { loadPreludeScript } from '../../src/sandbox/isolate-script.js';
import { type IsolateOutcome, PluginIsolate } from '../../src/sandbox/plugin-isolate.js';
import { loadPrelude, type Prelude, preparePrelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { callRequest } from './call-request.js';

/** A plugin that reports what its isolate holds; `mini` also binds zod's mini API (the `full` prelude). */
function probeSource(mini: boolean): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
${mini ? "import * as zm from 'zod/mini';" : ''}
const setup = /toolhost|ivm|bridge|attach|entry/i;
const atLoad = Object.getOwnPropertyNames(globalThis).filter((n) => setup.test(n));
/** Every property reachable from globalThis (4 levels, prototypes included): attributes and kind. */
function walk() {
  const out = {};
  const seen = new Set();
  const visit = (obj, at, depth) => {
    if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function') || seen.has(obj) || depth > 4) return;
    seen.add(obj);
    for (const key of Reflect.ownKeys(obj)) {
      const d = Object.getOwnPropertyDescriptor(obj, key);
      const value = 'value' in d ? (typeof d.value === 'object' || typeof d.value === 'function' ? typeof d.value : String(d.value)) : 'accessor';
      out[at + '.' + String(key)] = (d.writable ? 'w' : '-') + (d.enumerable ? 'e' : '-') + (d.configurable ? 'c' : '-') + ' ' + value;
      if ('value' in d) visit(d.value, at + '.' + String(key), depth + 1);
    }
    visit(Object.getPrototypeOf(obj), at + '.[[Prototype]]', depth + 1);
  };
  visit(globalThis, 'globalThis', 0);
  return out;
}
const Shape = z
  .object({
    name: z.string().min(2).describe('who it is'),
    tags: z.array(z.enum(['a', 'b'])).max(2).default([]),
    kind: z.discriminatedUnion('type', [
      z.object({ type: z.literal('n'), n: z.number().int().positive() }),
      z.object({ type: z.literal('s'), s: z.string().regex(/^x+$/) }),
    ]),
    extra: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    pair: z.tuple([z.string(), z.boolean()]).nullable().optional(),
    when: z.iso.datetime().optional(),
    size: z.string().transform((s) => s.length).pipe(z.number().max(5)).optional(),
  })
  .meta({ title: 'Shape' });
${mini ? 'const Mini = zm.object({ word: zm.string().check(zm.minLength(3)) });' : 'const Mini = undefined;'}
export default definePlugin({
  id: 'probe',
  tools: [
    defineTool({
      name: 'globals',
      description: 'What the global object holds',
      input: z.object({}),
      execute: () => JSON.stringify({ atLoad, atCall: Object.getOwnPropertyNames(globalThis).filter((n) => setup.test(n)),
        wasm: [typeof (globalThis as any).WebAssembly, (0, eval)('typeof WebAssembly'), new Function('return typeof WebAssembly')()],
        walk: walk() }),
    }),
    defineTool({
      name: 'draw',
      description: 'Random values',
      input: z.object({}),
      execute: () => JSON.stringify({ random: [Math.random(), Math.random(), Math.random()], uuid: crypto.randomUUID(),
        bytes: Array.from(crypto.getRandomValues(new Uint8Array(16))) }),
    }),
    defineTool({
      name: 'shape',
      description: 'Takes a shape',
      input: Shape,
      output: z.object({ tags: z.number() }),
      execute: (input) => ({ content: [{ type: 'text', text: JSON.stringify(input) }], structuredContent: { tags: input.tags.length } }),
    }),
    defineTool({
      name: 'parse',
      description: 'Parses values with zod',
      input: z.object({ values: z.array(z.unknown()) }),
      execute: ({ values }) => JSON.stringify(values.map((value) => {
        const parsed = Shape.safeParse(value);
        const mini = Mini === undefined ? null : Mini.safeParse(value);
        return { shape: parsed.success ? parsed.data : parsed.error.issues, mini: mini === null ? null : mini.success ? mini.data : mini.error.issues };
      })),
    }),
  ],
});
`;
}

const handlers = {
  log: () => {},
  progress: () => {},
  request: async () => JSON.stringify({ ok: false, error: 'no capabilities here' }),
};

let ids = 0;
function request(toolName: string, input: unknown): CallRequest {
  ids += 1;
  return callRequest(ids, toolName, input, 1_000_000);
}

async function replyOf<R>(answer: IsolateOutcome<R> | Promise<IsolateOutcome<R>>): Promise<R> {
  const outcome = await answer;
  if (outcome.kind !== 'reply') throw new Error(`the isolate failed: ${outcome.message}`);
  return outcome.reply;
}

/** The text a tool of `isolate` returned for `input`. */
async function textOf(isolate: PluginIsolate, tool: string, input: unknown = {}): Promise<string> {
  const reply: CallReply = await replyOf(isolate.call(request(tool, input)));
  if (reply.kind !== 'ok') throw new Error(`${tool}: ${JSON.stringify(reply)}`);
  const block = reply.result.content[0];
  return block?.type === 'text' ? block.text : '';
}

/** The same prelude evaluated by every isolate (no snapshot, no cache): what a snapshot must equal. */
function evaluated(prelude: Prelude): Prelude {
  return {
    code: prelude.code,
    filename: prelude.filename,
    snapshot: undefined,
    cachedData: undefined,
    warmed: false,
  };
}

const made: PluginIsolate[] = [];
async function isolateOf(prelude: Prelude, bundle: string): Promise<PluginIsolate> {
  const isolate = await PluginIsolate.prepare(prelude, DEFAULT_SANDBOX_LIMITS, handlers);
  made.push(isolate);
  await isolate.load(bundle);
  return isolate;
}

describe('plugin isolates made from the snapshot of the prelude', () => {
  const bundles: Record<'base' | 'full', string> = { base: '', full: '' };
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'toolhost-snapshot-'));
    for (const kind of ['base', 'full'] as const) {
      await mkdir(path.join(dir, kind));
      await writeFile(path.join(dir, kind, 'index.ts'), probeSource(kind === 'full'));
      const built = await bundlePlugin(path.join(dir, kind, 'index.ts'));
      if (!built.ok) throw new Error(built.error);
      bundles[kind] = built.code;
    }
  });

  afterAll(async () => {
    for (const isolate of made.splice(0)) isolate.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('start from a snapshot this process made of its own prelude, once per prelude kind', async () => {
    const [base, full] = await Promise.all([loadPrelude(bundles.base), loadPrelude(bundles.full)]);
    expect(loadPrelude(bundles.base)).toBe(loadPrelude(bundles.base));
    expect(base.snapshot).toBeDefined();
    expect(full.snapshot).toBeDefined();
    expect(full.snapshot).not.toBe(base.snapshot);
    // Nothing else to compile: isolates made from the snapshot never see the source again.
    expect(base.cachedData).toBeUndefined();
  });

  it.each(['base', 'full'] as const)(
    'have the globals of an isolate that evaluated the %s prelude: WebAssembly deleted again, no setup entry left',
    async (kind) => {
      const bundle = bundles[kind];
      const prelude = await loadPrelude(bundle);
      expect(prelude.snapshot).toBeDefined();
      const fromSnapshot = JSON.parse(await textOf(await isolateOf(prelude, bundle), 'globals'));
      const fromSource = JSON.parse(await textOf(await isolateOf(evaluated(prelude), bundle), 'globals'));
      // While the bundle evaluates only the one-shot registration hook is there; in a call, nothing.
      expect(fromSnapshot.atLoad).toEqual(['__toolhost_register']);
      expect(fromSnapshot.atCall).toEqual([]);
      expect(fromSnapshot.wasm).toEqual(['undefined', 'undefined', 'undefined']);
      expect(Object.keys(fromSnapshot.walk).filter((key) => /WebAssembly|toolhost/.test(key))).toEqual([]);
      expect(fromSnapshot.walk).toEqual(fromSource.walk);
      expect(fromSnapshot.atLoad).toEqual(fromSource.atLoad);
    },
  );

  it('draw their own Math.random and crypto values: none repeats across isolates', async () => {
    const prelude = await loadPrelude(bundles.base);
    expect(prelude.snapshot).toBeDefined();
    const draws = await Promise.all(
      [1, 2, 3].map(async () => JSON.parse(await textOf(await isolateOf(prelude, bundles.base), 'draw'))),
    );
    const randoms = draws.flatMap((d) => d.random);
    expect(new Set(randoms).size).toBe(randoms.length);
    expect(new Set(draws.map((d) => d.uuid)).size).toBe(3);
    expect(new Set(draws.map((d) => JSON.stringify(d.bytes))).size).toBe(3);
  });

  it.each(['base', 'full'] as const)(
    'run zod as an evaluated %s prelude does: the same manifest, parses and issues',
    async (kind) => {
      const bundle = bundles[kind];
      const prelude = await loadPrelude(bundle);
      expect(prelude.snapshot).toBeDefined();
      const values = [
        { name: 'ab', kind: { type: 'n', n: 3 }, extra: { k: 1 }, pair: ['p', true], size: 'abc' },
        { name: 'a', tags: ['c'], kind: { type: 's', s: 'y' }, when: 'noon', size: 'abcdefg' },
        { word: 'hi', name: 'abc', kind: { type: 'n', n: -1 } },
        'not an object',
      ];
      const results = [];
      for (const made of [prelude, evaluated(prelude)]) {
        const isolate = await isolateOf(made, bundle);
        const manifest: DescribeReply = await replyOf(isolate.describe('null'));
        const parsed = JSON.parse(await textOf(isolate, 'parse', { values }));
        const shape = await textOf(isolate, 'shape', values[0]);
        const refused: CallReply = await replyOf(isolate.call(request('shape', values[1])));
        results.push({ manifest, parsed, shape, refused });
      }
      const [fromSnapshot, fromSource] = results as [(typeof results)[0], (typeof results)[0]];
      expect(fromSnapshot).toEqual(fromSource);
      // And it is zod working, not two isolates failing alike.
      if (!fromSnapshot.manifest.ok) throw new Error(fromSnapshot.manifest.error);
      const shapeTool = fromSnapshot.manifest.manifest.tools.find((t) => t.name === 'shape');
      expect(shapeTool?.inputSchema).toMatchObject({
        title: 'Shape',
        properties: { name: { type: 'string', minLength: 2, description: 'who it is' } },
      });
      expect(fromSnapshot.parsed[0].shape).toEqual({
        name: 'ab',
        tags: [],
        kind: { type: 'n', n: 3 },
        extra: { k: 1 },
        pair: ['p', true],
        size: 3,
      });
      expect(fromSnapshot.parsed[1].shape.map((i: { path: unknown[] }) => i.path.join('.'))).toEqual([
        'name',
        'tags.0',
        'kind.s',
        'when',
        'size',
      ]);
      expect(fromSnapshot.parsed[3].shape[0].message).toMatch(/expected object/);
      expect(JSON.parse(fromSnapshot.shape)).toMatchObject({ tags: [], size: 3 });
      expect(fromSnapshot.refused).toMatchObject({ kind: 'invalid-input' });
      if (kind === 'full') {
        expect(fromSnapshot.parsed[2].mini[0]).toMatchObject({ path: ['word'], code: 'too_small' });
        expect(fromSnapshot.parsed[0].mini[0]).toMatchObject({ path: ['word'] });
      }
    },
  );

  it('fall back to the code cache when V8 cannot snapshot the prelude, and say so once', async () => {
    // SharedArrayBuffer exists in every live context but not while V8 takes a snapshot: a prelude
    // that uses it at its top level is one V8 refuses to snapshot (a real engine error, not a fake).
    const code = `${await loadPreludeScript('base')}\nnew SharedArrayBuffer(8);`;
    const lines: string[] = [];
    const warn = (line: string) => lines.push(line);
    const prelude = await preparePrelude(code, warn);
    expect(prelude.snapshot).toBeUndefined();
    expect(prelude.cachedData).toBeDefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /cannot snapshot the sandbox prelude \(ReferenceError: SharedArrayBuffer is not defined\); plugin isolates evaluate it from V8's code cache instead/,
    );
    // Said once per process, however many preludes fail.
    expect((await preparePrelude(code, warn)).snapshot).toBeUndefined();
    expect(lines).toHaveLength(1);
    // The fallback's isolates work as ever.
    const isolate = await isolateOf(prelude, bundles.base);
    const manifest: DescribeReply = await replyOf(isolate.describe('null'));
    expect(manifest.ok).toBe(true);
    expect(JSON.parse(await textOf(isolate, 'globals')).wasm).toEqual([
      'undefined',
      'undefined',
      'undefined',
    ]);
  });
});
