// What a `ctx.fs` operation costs on the host, as the capability provider serves it: folders held
// by descriptor (`/proc/self/fd`, the default on Linux) beside folders named by path (the fallback
// elsewhere), and, given TOOLHOST_BASELINE (the `dist/` folder of another build of
// packages/host, e.g. main's), that build's provider too. Each operation's paths are interleaved
// in blocks of 100 after a warm-up, as DESIGN.md asks: compare the ratios, not the absolute µs.
// Run after `npm run build` (a baseline is any other checkout of the repository, built the same way):
//   node --no-node-snapshot bench/fs-ops.mjs
//   TOOLHOST_BASELINE=/path/to/other/packages/host/dist node --no-node-snapshot bench/fs-ops.mjs
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCapabilityProvider } from '@toolhost/host/internal';

const BLOCK = 100;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs each path `WARMUP` times, then `BLOCKS` interleaved blocks; median µs per call of each. */
async function compare(paths) {
  const names = Object.keys(paths);
  for (const name of names) for (let i = 0; i < WARMUP; i++) await paths[name]();
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let b = 0; b < BLOCKS; b++) {
    for (const name of names) {
      const started = performance.now();
      for (let i = 0; i < BLOCK; i++) await paths[name]();
      samples[name].push(((performance.now() - started) * 1000) / BLOCK);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name])]));
}

const base = await fs.mkdtemp(path.join(tmpdir(), 'toolhost-bench-fs-'));
const root = path.join(base, 'project');
await fs.mkdir(path.join(root, 'data', 'a', 'b'), { recursive: true });
await fs.writeFile(path.join(root, 'data', 'a', 'b', 'file.txt'), 'x'.repeat(1024));
await fs.writeFile(path.join(root, 'toolhost.config.json'), '{}');
// A granted folder reached through a relative link (as in a pnpm node_modules): the walk follows it.
await fs.mkdir(path.join(root, 'store', 'pkg'), { recursive: true });
await fs.writeFile(path.join(root, 'store', 'pkg', 'index.js'), 'export {};');
await fs.symlink('../store/pkg', path.join(root, 'data', 'pkg'));

const settings = {
  pluginId: 'bench',
  root,
  permissions: { fs: { write: ['data'], read: ['store'] } },
  grants: { fs: { write: ['data'], read: ['store'] } },
};
const providers = {
  descriptors: createCapabilityProvider({ ...settings, folderMode: 'descriptors' }),
  paths: createCapabilityProvider({ ...settings, folderMode: 'paths' }),
};
if (process.env.TOOLHOST_BASELINE) {
  const url = pathToFileURL(path.join(path.resolve(process.env.TOOLHOST_BASELINE), 'internal.js'));
  const baseline = await import(url.href);
  providers.baseline = baseline.createCapabilityProvider(settings);
}

const signal = new AbortController().signal;
let flip = false;
const operations = {
  'readFile data/a/b/file.txt': (p) => p.invoke('fs.readFile', { path: 'data/a/b/file.txt' }, signal),
  'readFile data/pkg/index.js (via a link)': (p) =>
    p.invoke('fs.readFile', { path: 'data/pkg/index.js' }, signal),
  'stat data/a/b/file.txt': (p) => p.invoke('fs.stat', { path: 'data/a/b/file.txt' }, signal),
  'readdir data/a/b': (p) => p.invoke('fs.readdir', { path: 'data/a/b' }, signal),
  'writeFile data/a/b/out.txt (atomic + fsync)': (p) =>
    p.invoke('fs.writeFile', { path: 'data/a/b/out.txt', data: 'hello' }, signal),
  // One file moved back and forth: every call, whichever provider makes it, finds it where the last left it.
  'rename data/a/b/r1 <-> r2': (p) => {
    flip = !flip;
    const [from, to] = flip ? ['data/a/b/r1', 'data/a/b/r2'] : ['data/a/b/r2', 'data/a/b/r1'];
    return p.invoke('fs.rename', { from, to }, signal);
  },
};
await fs.writeFile(path.join(root, 'data', 'a', 'b', 'r1'), 'r');

const rows = [];
for (const [label, run] of Object.entries(operations)) {
  const paths = Object.fromEntries(Object.entries(providers).map(([name, p]) => [name, () => run(p)]));
  rows.push([label, await compare(paths)]);
}
await fs.rm(base, { recursive: true, force: true });

const names = Object.keys(providers);
const header = ['operation (median µs per call)', ...names, 'descriptors / paths'];
if (providers.baseline) header.push('descriptors / baseline');
const lines = rows.map(([label, m]) => {
  const cells = [label, ...names.map((name) => m[name].toFixed(1)), (m.descriptors / m.paths).toFixed(2)];
  if (providers.baseline) cells.push((m.descriptors / m.baseline).toFixed(2));
  return cells;
});
const widths = header.map((_, i) => Math.max(...[header, ...lines].map((row) => row[i].length)));
for (const row of [header, ...lines]) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
