// What one plugin isolate costs with the shared prelude (runtime + SDK + zod, see
// packages/host/src/sandbox/prelude.ts): time to make the prelude once per process, time to
// create an isolate ready to describe (and of its synchronous part, `new ivm.Isolate`, which
// holds this thread), time of describe and of the first call, and RSS per live isolate with N alive, for a generated
// 3-tool plugin. Variants, one per run (compare runs made in the same minute; this machine is noisy):
//   snapshot  the shipped path: isolates made from this process's V8 snapshot of the prelude,
//             taken with its warm-up (packages/host/src/sandbox/prelude-warmup.ts)
//   unwarmed  the same snapshot taken without the warm-up
//   cache     the fallback: the prelude evaluated by every isolate, compiled from V8's code cache
//   no-cache  the same prelude parsed by every isolate
// Run: `npm run build && node --no-node-snapshot bench/isolate-prelude.mjs [snapshot|unwarmed|cache|no-cache] [N] [--mini]`
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bundlePlugin } from '@toolhost/host/internal';
import ivm from 'isolated-vm';
import { loadPreludeScript, preludeKindOf } from '../packages/host/dist/sandbox/isolate-script.js';
import { PluginIsolate } from '../packages/host/dist/sandbox/plugin-isolate.js';
import { codeCachePrelude, preparePrelude } from '../packages/host/dist/sandbox/prelude.js';

const variant = process.argv[2] ?? 'snapshot';
if (!['snapshot', 'unwarmed', 'cache', 'no-cache'].includes(variant))
  throw new Error(`unknown variant ${variant}`);
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

const code = await loadPreludeScript(kind);
const preparing = performance.now();
const prepared =
  variant === 'snapshot'
    ? await preparePrelude(code)
    : variant === 'unwarmed'
      ? await preparePrelude(code, undefined, null)
      : await codeCachePrelude(code);
const prepareMs = performance.now() - preparing;
if ((variant === 'snapshot' || variant === 'unwarmed') && prepared.snapshot === undefined)
  throw new Error('no snapshot was made');
if (variant === 'snapshot' && !prepared.warmed) throw new Error('the snapshot was taken without its warm-up');
const prelude = variant === 'no-cache' ? { ...prepared, cachedData: undefined } : prepared;
// Warm-up: the first isolates pay for V8's own first compiles.
for (let i = 0; i < 5; i++) {
  const isolate = await PluginIsolate.prepare(prelude, LIMITS, HANDLERS);
  await isolate.load(bundle);
  await isolate.describe('null');
  isolate.dispose();
}
// The synchronous part of making an isolate (from the snapshot, the default context too).
const newIsolate = [];
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  const isolate = new ivm.Isolate({
    memoryLimit: LIMITS.memoryMb,
    ...(prelude.snapshot === undefined ? {} : { snapshot: prelude.snapshot }),
  });
  newIsolate.push(performance.now() - started);
  isolate.dispose();
}
const live = [];
const create = [];
const describe = [];
const firstCall = [];
const rss0 = process.memoryUsage().rss;
for (let i = 0; i < N; i++) {
  let started = performance.now();
  const isolate = await PluginIsolate.prepare(prelude, LIMITS, HANDLERS);
  await isolate.load(bundle);
  create.push(performance.now() - started);
  started = performance.now();
  const outcome = await isolate.describe('null');
  describe.push(performance.now() - started);
  if (outcome.kind !== 'reply' || !outcome.reply.ok) throw new Error(JSON.stringify(outcome));
  started = performance.now();
  const called = await isolate.call({
    callId: `c${i}`,
    toolName: 'b',
    toolUseId: `t${i}`,
    sessionId: 's',
    input: { n: i },
    config: null,
    env: {},
    envGranted: [],
    maxReplyChars: 10_000,
  });
  firstCall.push(performance.now() - started);
  if (called.kind !== 'reply' || called.reply.kind !== 'ok') throw new Error(JSON.stringify(called));
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
    ...(prelude.snapshot === undefined ? {} : { snapshotBytes: prelude.snapshot.copy().byteLength }),
    prepareMs: Number(prepareMs.toFixed(1)),
    createMs: Number(median(create).toFixed(2)),
    newIsolateMs: Number(median(newIsolate).toFixed(2)),
    describeMs: Number(median(describe).toFixed(2)),
    firstCallMs: Number(median(firstCall).toFixed(2)),
    rssPerIsolateMb: mb(rss),
  }),
);
for (const isolate of live) isolate.dispose();
process.exit(0);
