// What the safety of the built-in file tools costs per call: the per-path lock, path confinement with the
// control-file check, and a whole `edit`/`write` (atomic: temporary file, fsync, rename), beside a plain
// `fs.writeFile`. Paths compared are interleaved in blocks of 100 after a warm-up, as DESIGN.md
// asks; compare the ratios, not the absolute numbers. Run after `npm run build`:
//   node bench/file-tools.mjs
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createBuiltinTools } from '@toolhost/host/internal';
import { ControlGuard } from '../packages/host/dist/sources/builtin/control.js';
import { KeyedLock } from '../packages/host/dist/workspace/path-lock.js';

const BLOCK = 100;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs each path `warmup` times, then `blocks` interleaved blocks; median µs per call of each. */
async function compare(paths, { warmup, blocks }) {
  const names = Object.keys(paths);
  for (const name of names) for (let i = 0; i < warmup; i++) await paths[name]();
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let b = 0; b < blocks; b++) {
    for (const name of names) {
      const started = performance.now();
      for (let i = 0; i < BLOCK; i++) await paths[name]();
      samples[name].push(((performance.now() - started) * 1000) / BLOCK);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name])]));
}

const base = await fs.mkdtemp(path.join(tmpdir(), 'toolhost-bench-files-'));
const root = path.join(base, 'root');
await fs.mkdir(path.join(root, 'src', 'deep'), { recursive: true });
const file = path.join(root, 'src', 'deep', 'code.ts');
const content = `${'// a line of code\n'.repeat(200)}`; // ≈ 3.6 KB
await fs.writeFile(file, content);
await fs.writeFile(path.join(root, 'src', 'deep', 'edit.ts'), `MARKER_A\n${content}`);

const lock = new KeyedLock();
const work = async () => 1;
const lockRows = await compare(
  {
    'await fn()': () => work(),
    'lock.run(key, fn)': () => lock.run(file, work),
  },
  { warmup: 5_000, blocks: 200 },
);

const guard = new ControlGuard(root);
const tools = new Map(createBuiltinTools({ root }).map((tool) => [tool.descriptor.name, tool]));
const ctx = {
  toolUseId: 'bench',
  sessionId: 'bench',
  signal: new AbortController().signal,
  log: { debug() {}, info() {}, warn() {}, error() {} },
  progress() {},
};
let flip = false;
const fileRows = await compare(
  {
    'confine + control check (guard.confine)': () => guard.confine(root, 'src/deep/code.ts', 'write'),
    'fs.writeFile (plain, no fsync)': () => fs.writeFile(file, content),
    'write tool (atomic + fsync)': () =>
      tools.get('write').executor.run({ path: 'src/deep/code.ts', content }, ctx),
    'edit tool (read + atomic write)': () => {
      flip = !flip;
      const [oldText, newText] = flip ? ['MARKER_A', 'MARKER_B'] : ['MARKER_B', 'MARKER_A'];
      return tools.get('edit').executor.run({ path: 'src/deep/edit.ts', oldText, newText }, ctx);
    },
  },
  { warmup: 300, blocks: 10 },
);
await fs.rm(base, { recursive: true, force: true });

const rows = { ...lockRows, ...fileRows };
const width = Math.max(...Object.keys(rows).map((name) => name.length));
for (const [name, us] of Object.entries(rows))
  console.log(`${name.padEnd(width)}  ${us.toFixed(2).padStart(9)} µs`);
const lockCost = lockRows['lock.run(key, fn)'] - lockRows['await fn()'];
console.log(
  `\nlock overhead ≈ ${lockCost.toFixed(2)} µs per call = ${((100 * lockCost) / fileRows['edit tool (read + atomic write)']).toFixed(3)} % of an edit`,
);
