// grep over a large generated tree (5,000 files, 50 MB of source-like text), four ways, side by side
// in one run: RegExp on the main thread (grep before this change), re2js on the main thread (a
// linear-time engine alone), RegExp in a worker thread (grep now) and re2js in a worker thread.
// For each: wall time (median, and its ratio to the first), CPU time of the whole process, and the
// longest the event loop was held up. This machine is noisy: compare the ratios, not the absolute
// numbers. Run with `npm run bench` (or `node --no-node-snapshot bench/grep.mjs`; BENCH_ROUNDS=n).
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createBuiltinTools } from '@toolhost/host/internal';
import { linearLineTest } from '../packages/host/dist/sources/builtin/grep-linear.js';
import { searchFiles } from '../packages/host/dist/sources/builtin/grep-search.js';
import { openForRead } from '../packages/host/dist/workspace/files.js';

const FILES = 5_000;
const BYTES_PER_FILE = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MAX_RESULTS = 1_000;
const MAX_READ_BYTES = 1024 * 1024;

const PATTERNS = [
  { name: 'literal', pattern: 'handler_4242' },
  { name: 'foo\\w+bar', pattern: 'foo\\w+bar' },
  { name: 'ignoreCase', pattern: 'todo: fix', ignoreCase: true },
  { name: 'alternation', pattern: 'request_1717|response_2323|config_9999' },
  { name: 'common (stops at 1000)', pattern: 'return' },
];

// ---- the tree ----

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

async function makeTree(root) {
  const rnd = random(12345);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const words =
    'const let function return if else for await import export from value result config handler request response error options index length push map filter this new class extends string number true false null undefined logger info warn'.split(
      ' ',
    );
  const identifier = () => {
    if (rnd() < 0.3) return `${pick(words)}_${Math.floor(rnd() * 10_000)}`;
    if (rnd() < 0.00003) return `foo${pick(words)}bar`;
    return pick(words);
  };
  let bytes = 0;
  for (let f = 0; f < FILES; f++) {
    const dir = path.join(root, `pkg${Math.floor(f / 250)}`, `mod${Math.floor(f / 50) % 5}`);
    await fs.mkdir(dir, { recursive: true });
    const lines = [];
    let size = 0;
    while (size < BYTES_PER_FILE) {
      const words = Array.from({ length: 3 + Math.floor(rnd() * 8) }, identifier);
      let line = `${'  '.repeat(Math.floor(rnd() * 4))}${words.join(rnd() < 0.5 ? ' ' : '.')}${rnd() < 0.6 ? ';' : ' {'}`;
      if (rnd() < 0.04) line = `  // ${rnd() < 0.003 ? 'MARKER: fix ' : ''}${words.join(' ')}`;
      lines.push(line);
      size += line.length + 1;
    }
    const text = `${lines.join('\n')}\n`;
    bytes += text.length;
    await fs.writeFile(path.join(dir, `file${f}.ts`), text);
  }
  return bytes;
}

// ---- the four ways ----

async function* walk(dir) {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/** Reads as grep does: confined open, size cap, NUL check. */
async function* readFiles(root) {
  for await (const file of walk(root)) {
    const rel = path.relative(root, file);
    const handle = await openForRead(root, file, rel);
    try {
      const { size } = await handle.stat();
      if (size > MAX_READ_BYTES) continue;
      const data = await handle.readFile();
      if (!data.includes(0)) yield { rel, data };
    } finally {
      await handle.close();
    }
  }
}

/** grep before this change: every line tested on the main thread. */
async function mainThread(root, test) {
  const hits = [];
  search: for await (const { rel, data } of readFiles(root)) {
    const lines = data.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].replace(/\r$/, '');
      if (!test(line)) continue;
      if (hits.length === MAX_RESULTS) break search;
      hits.push(`${rel}:${i + 1}`);
    }
  }
  return hits.length;
}

const ways = {
  'RegExp, main thread (before)': (root, { pattern, ignoreCase = false }) => {
    const regex = new RegExp(pattern, ignoreCase ? 'i' : '');
    return mainThread(root, (line) => regex.test(line));
  },
  're2js, main thread': (root, { pattern, ignoreCase = false }) =>
    mainThread(root, linearLineTest(pattern, ignoreCase)),
  'RegExp, worker (grep now)': async (root, { pattern, ignoreCase = false }) =>
    (await inWorker(root, { pattern, ignoreCase, engine: 'native' })).hits.length,
  're2js, worker': async (root, { pattern, ignoreCase = false }) =>
    (await inWorker(root, { pattern, ignoreCase, engine: 'linear' })).hits.length,
};

function inWorker(root, { pattern, ignoreCase, engine }) {
  return searchFiles(readFiles(root), {
    pattern,
    ignoreCase,
    engine,
    maxResults: MAX_RESULTS,
    budgetMs: 600_000,
    fileBudgetMs: 60_000,
    maxFileBytes: MAX_READ_BYTES,
    signal: new AbortController().signal,
  });
}

// ---- measuring ----

/** The longest gap between ticks of a 1 ms interval timer: how long the event loop was held up. */
function stallTracker() {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    async stop() {
      // One more tick, so a block at the very end is counted.
      await new Promise((resolve) => setTimeout(resolve, 2));
      clearInterval(timer);
      return longest;
    },
  };
}

async function measure(run) {
  const stalls = stallTracker();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const count = await run();
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (user + system) / 1000, stallMs: await stalls.stop(), count };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (value, digits = 0) => value.toFixed(digits).padStart(7);

const root = await fs.realpath(await fs.mkdtemp(path.join(tmpdir(), 'toolhost-grep-bench-')));
try {
  const bytes = await makeTree(root);
  console.log(`tree: ${FILES} files, ${(bytes / 1e6).toFixed(1)} MB; ${ROUNDS} rounds, medians\n`);
  // Warm the page cache, V8 and the worker pool once per way.
  for (const way of Object.values(ways)) await way(root, PATTERNS[0]);
  const reading = [];
  for (let round = 0; round < ROUNDS; round++) {
    reading.push(
      await measure(async () => {
        let count = 0;
        for await (const _file of readFiles(root)) count++;
        return count;
      }),
    );
  }
  console.log(
    `reading alone (no matching): ${median(reading.map((s) => s.wallMs)).toFixed(0)} ms wall, ${median(reading.map((s) => s.cpuMs)).toFixed(0)} ms cpu\n`,
  );

  for (const spec of PATTERNS) {
    const samples = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, way] of Object.entries(ways))
        samples[name].push(await measure(() => way(root, spec)));
    }
    const base = median(samples['RegExp, main thread (before)'].map((s) => s.wallMs));
    console.log(`${spec.name}  /${spec.pattern}/${spec.ignoreCase ? 'i' : ''}`);
    console.log('  way                             wall ms   ratio   cpu ms  longest stall ms  matches');
    for (const [name, runs] of Object.entries(samples)) {
      const wall = median(runs.map((s) => s.wallMs));
      console.log(
        `  ${name.padEnd(30)} ${fixed(wall)} ${fixed(wall / base, 2)}x ${fixed(median(runs.map((s) => s.cpuMs)))} ${fixed(median(runs.map((s) => s.stallMs)), 1)}          ${runs[0].count}`,
      );
    }
    console.log();
  }

  // Matching alone (no reading), CPU time in this thread, interleaved: the engines' own cost, which
  // the whole-search numbers above bury under reading and the machine's noise. "re2js, RE2 syntax"
  // is re2js given the pattern as RE2 reads it (its own case folding), as a grep declaring RE2
  // syntax would run it; "re2js, translated" is grep's linear-time engine (JavaScript's meaning).
  {
    const { RE2JS } = await import('re2js');
    const { matchLines } = await import('../packages/host/dist/sources/builtin/grep-match.js');
    let text = '';
    for await (const { data } of readFiles(root)) {
      text += data.toString('utf8');
      if (text.length > 20e6) break;
    }
    console.log(
      `matching alone, ${(text.length / 1e6).toFixed(0)} MB of lines, cpu ms (median of 3, interleaved):`,
    );
    const extra = [
      { name: 'anchored', pattern: '^\\s*import .* from' },
      { name: 'class', pattern: '[A-Z][a-z]+Error' },
    ];
    for (const { name, pattern, ignoreCase = false } of [...PATTERNS, ...extra]) {
      const native = new RegExp(pattern, ignoreCase ? 'i' : '');
      const plain = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
      const engines = {
        RegExp: (line) => native.test(line),
        're2js, translated': linearLineTest(pattern, ignoreCase),
        're2js, RE2 syntax': (line) => plain.test(line),
      };
      const cpu = Object.fromEntries(Object.keys(engines).map((engine) => [engine, []]));
      for (let round = 0; round < 3; round++) {
        for (const [engine, test] of Object.entries(engines)) {
          const started = process.cpuUsage();
          matchLines(text, test, Number.MAX_SAFE_INTEGER);
          const { user, system } = process.cpuUsage(started);
          cpu[engine].push((user + system) / 1000);
        }
      }
      const base = median(cpu.RegExp);
      const cells = Object.entries(cpu).map(
        ([engine, runs]) => `${engine} ${median(runs).toFixed(0)} (${(median(runs) / base).toFixed(2)}x)`,
      );
      console.log(`  ${name.padEnd(24)} ${cells.join('   ')}`);
    }
    console.log();
  }

  // One small file, many calls: what the worker hand-off costs a search that finds its answer at once.
  const small = path.join(root, 'small');
  await fs.mkdir(small);
  await fs.writeFile(path.join(small, 'a.ts'), 'export const handler = 1;\n'.repeat(50));
  const grep = createBuiltinTools({ root: small }).find((tool) => tool.descriptor.name === 'grep');
  const callTool = async () => {
    const check = grep.executor.validateInput({ pattern: 'handler' });
    const ctx = { signal: new AbortController().signal, log: console, progress: () => {} };
    return grep.executor.run(check.value, ctx);
  };
  const oldSmall = () => ways['RegExp, main thread (before)'](small, { pattern: 'handler' });
  for (let i = 0; i < 200; i++) {
    await callTool();
    await oldSmall();
  }
  const perCall = { before: [], now: [] };
  for (let block = 0; block < 10; block++) {
    for (const [name, run] of [
      ['before', oldSmall],
      ['now', callTool],
    ]) {
      const started = performance.now();
      for (let i = 0; i < 100; i++) await run();
      perCall[name].push(((performance.now() - started) / 100) * 1000);
    }
  }
  const before = median(perCall.before);
  const now = median(perCall.now);
  console.log(
    `one 1 KB file, per call: before ${before.toFixed(0)} µs, grep tool now ${now.toFixed(0)} µs (${(now / before).toFixed(2)}x)\n`,
  );

  // The hole itself: ^(a+)+$ on 24 a's and a "!" (2^24 ways to backtrack).
  const evil = path.join(root, 'evil');
  await fs.mkdir(evil);
  await fs.writeFile(path.join(evil, 'evil.txt'), `${'a'.repeat(24)}!\n`);
  const spec = { pattern: '^(a+)+$' };
  const beforeEvil = await measure(() => ways['RegExp, main thread (before)'](evil, spec));
  const evilGrep = createBuiltinTools({ root: evil }).find((tool) => tool.descriptor.name === 'grep');
  const nowEvil = await measure(async () => {
    const result = await evilGrep.executor.run(spec, {
      signal: new AbortController().signal,
      log: console,
      progress: () => {},
    });
    return JSON.stringify(result.content[0].text);
  });
  console.log('^(a+)+$ on 24 a\'s and a "!":');
  console.log(
    `  before: ${beforeEvil.wallMs.toFixed(0)} ms, event loop held up to ${beforeEvil.stallMs.toFixed(0)} ms`,
  );
  console.log(
    `  now:    ${nowEvil.wallMs.toFixed(0)} ms, event loop held up to ${nowEvil.stallMs.toFixed(1)} ms; ${nowEvil.count}`,
  );

  // Why a linear-time engine alone is not enough: linear in the line, but with a large program.
  const line = 'a'.repeat(10_000);
  const heavy = linearLineTest('(\\w+\\s?){1000}$', false);
  const started = performance.now();
  heavy(line);
  console.log(
    `re2js alone, (\\w+\\s?){1000}$ on one 10 KB line: ${(performance.now() - started).toFixed(0)} ms on whichever thread runs it`,
  );
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
process.exit(0);
