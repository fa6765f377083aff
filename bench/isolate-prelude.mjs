// What one plugin isolate costs with the shared prelude (runtime + SDK + zod, see
// packages/host/src/sandbox/prelude.ts): time to create an isolate ready to describe, time of
// describe, and heap and RSS per live isolate with N alive, for a generated 3-tool plugin.
// Variants, one per run (compare runs made in the same minute; this machine is noisy):
//   cache     the shipped path: the prelude compiled from this process's V8 code cache
//   no-cache  the same prelude parsed by every isolate
//   snapshot  an isolated-vm snapshot of the prelude (not used: prints why, with its costs)
// Run: `npm run build && node --no-node-snapshot bench/isolate-prelude.mjs [cache|no-cache|snapshot] [N] [--mini]`
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bundlePlugin } from '@toolhost/host/internal';
import ivm from 'isolated-vm';
import { loadPreludeScript, preludeKindOf } from '../packages/host/dist/sandbox/isolate-script.js';
import { PluginIsolate } from '../packages/host/dist/sandbox/plugin-isolate.js';
import { loadPrelude } from '../packages/host/dist/sandbox/prelude.js';

const variant = process.argv[2] ?? 'cache';
const N = Number(process.argv[3] ?? 100);
const mini = process.argv.includes('--mini');
const LIMITS = { timeoutMs: 10_000, cpuMs: 10_000, memoryMb: 64, maxResultChars: 4_000_000 };
const HANDLERS = { log() {}, progress() {}, request: async () => '{"ok":false,"error":"none"}' };

const source = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import { z } from 'zod';
${mini ? "import * as zm from 'zod/mini';" : ''}
export default definePlugin({
  id: 'p',
  tools: [
    defineTool({ name: 'a', description: 'A', input: z.object({ x: z.string().describe('the x') }), execute: ({ x }) => x }),
    defineTool({ name: 'b', description: 'B', input: z.object({ n: z.number().int().min(0) }), execute: ({ n }) => String(n * 2) }),
    defineTool({ name: 'c', description: 'C', input: z.object({ tags: z.array(${mini ? 'zm.string()' : 'z.string()'}).max(5) }), execute: ({ tags }) => tags.join(',') }),
  ],
});
`;

const dir = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-prelude-'));
await mkdir(path.join(dir, 'p'));
await writeFile(path.join(dir, 'p', 'index.ts'), source);
const built = await bundlePlugin(path.join(dir, 'p', 'index.ts'));
await rm(dir, { recursive: true, force: true });
if (!built.ok) throw new Error(built.error);
const bundle = built.code;
const kind = preludeKindOf(bundle);
const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];
const mb = (bytes) => Number((bytes / 1048576).toFixed(2));

if (variant === 'snapshot') {
  // Host callbacks cannot be in a snapshot: a stub bridge stands in (the real one would be installed after).
  const stub = `globalThis.__toolhost_bridge = { log() {}, progress() {}, request() {}, reply() {}, entropy() { return ''; } };\n`;
  const code = await loadPreludeScript(kind);
  const snapshot = ivm.Isolate.createSnapshot([
    { code: `${stub}${code}\nglobalThis.__drawn = Math.random();` },
  ]);
  const live = [];
  const create = [];
  const rss0 = process.memoryUsage().rss;
  for (let i = 0; i < N; i++) {
    const started = performance.now();
    const isolate = new ivm.Isolate({ snapshot, memoryLimit: LIMITS.memoryMb });
    const context = await isolate.createContext();
    create.push(performance.now() - started);
    live.push({ isolate, context });
  }
  const rss = (process.memoryUsage().rss - rss0) / N;
  const probe = `JSON.stringify({
    zodZ: typeof __toolhost_shared.zod.z,
    parse: (() => { try { __toolhost_shared.zod.object({ a: __toolhost_shared.zod.string() }).parse({ a: 'x' }); return 'ok'; } catch (e) { return String(e); } })(),
    webAssembly: typeof WebAssembly,
    drawn: __drawn,
  })`;
  const probes = await Promise.all(live.slice(0, 2).map(({ context }) => context.eval(probe)));
  const heap = live.map(({ isolate }) => isolate.getHeapStatisticsSync());
  console.log(
    JSON.stringify({
      variant,
      kind,
      N,
      createMs: Number(median(create).toFixed(2)),
      usedHeapMb: mb(median(heap.map((h) => h.used_heap_size))),
      rssPerIsolateMb: mb(rss),
    }),
  );
  console.log(
    'soundness (two isolates; the runtime deletes WebAssembly, __drawn was drawn while snapshotting):',
  );
  for (const line of probes) console.log(`  ${line}`);
  for (const { isolate } of live) isolate.dispose();
  process.exit(0);
}

const shipped = await loadPrelude(bundle);
const prelude = variant === 'no-cache' ? { ...shipped, cachedData: undefined } : shipped;
// Warm-up: the first isolates pay for V8's own first compiles.
for (let i = 0; i < 5; i++) {
  const isolate = await PluginIsolate.create(prelude, bundle, LIMITS, HANDLERS);
  await isolate.describe('null');
  isolate.dispose();
}
const live = [];
const create = [];
const describe = [];
const rss0 = process.memoryUsage().rss;
for (let i = 0; i < N; i++) {
  let started = performance.now();
  const isolate = await PluginIsolate.create(prelude, bundle, LIMITS, HANDLERS);
  create.push(performance.now() - started);
  started = performance.now();
  const outcome = await isolate.describe('null');
  describe.push(performance.now() - started);
  if (outcome.kind !== 'reply' || !outcome.reply.ok) throw new Error(JSON.stringify(outcome));
  live.push(isolate);
}
const rss = (process.memoryUsage().rss - rss0) / N;
console.log(
  JSON.stringify({
    variant,
    kind,
    N,
    bundleBytes: bundle.length,
    preludeBytes: prelude.code.length,
    createMs: Number(median(create).toFixed(2)),
    describeMs: Number(median(describe).toFixed(2)),
    rssPerIsolateMb: mb(rss),
  }),
);
for (const isolate of live) isolate.dispose();
process.exit(0);
