// The sandbox alone, without the host's wrapper: `sandbox.call` of the echo plugin in an `inline`
// and in a `process` sandbox, so the cost of the executor channel (sandbox/channel.ts) and of the
// executor process is seen apart from hooks, validation and dispatch (bench/boundary.mjs measures
// the whole path against an MCP server). Method as boundary.mjs: BENCH_WARMUP sequential calls per
// path, then BENCH_BLOCKS rounds of a 100-call block per path (order alternating), for p50/p95 and
// CPU per call (this process; the executor from /proc/<pid>/stat); then BENCH_ROUNDS bursts per
// path at 64 and 5,000 calls in flight, for calls/s (median). Every reply is checked.
//
// Run: `npm run build && node --no-node-snapshot bench/sandbox-paths.mjs`.
// Environment: BENCH_BLOCKS (200), BENCH_WARMUP (3000), BENCH_ROUNDS (3).
// This machine is noisy: compare the paths of one run, not runs.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, InlineSandbox, ProcessSandbox } from '@toolhost/host/internal';
import { setting } from './lib/settings.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BLOCKS = setting('BENCH_BLOCKS', 200);
const WARMUP = setting('BENCH_WARMUP', 3_000);
const ROUNDS = setting('BENCH_ROUNDS', 3);

if (!process.execArgv.includes('--no-node-snapshot')) {
  console.error('bench: run with node --no-node-snapshot (isolated-vm needs it)');
  process.exit(2);
}

const built = await bundlePlugin(path.join(here, 'fixtures', 'plugins', 'echo', 'index.ts'));
if (!built.ok) throw new Error(built.error);

const sinks = { log() {}, progress() {} };
const noCapabilities = async () => null;
const signal = new AbortController().signal;
// Every call in flight listens to it.
setMaxListeners(0, signal);

/** utime+stime of a process, µs (Linux). */
function cpuOf(pid) {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
}

const paths = [
  { name: 'inline sandbox', sandbox: new InlineSandbox() },
  { name: 'process sandbox', sandbox: new ProcessSandbox() },
].map((p) => ({
  ...p,
  version: p.sandbox.load('echo', built.code, DEFAULT_SANDBOX_LIMITS),
  latencies: [],
  hostUs: 0,
  childUs: 0,
  calls: 0,
  rates: { 64: [], 5000: [] },
}));

async function call(p, i) {
  const outcome = await p.sandbox.call(
    'echo',
    p.version,
    {
      callId: randomUUID(),
      toolName: 'echo_text',
      toolUseId: `t${i}`,
      sessionId: 's',
      input: { text: `x${i}` },
      config: null,
      env: {},
      envGranted: [],
      maxResultChars: 100_000,
    },
    noCapabilities,
    sinks,
    signal,
  );
  const text =
    outcome.kind === 'reply' && outcome.reply.kind === 'ok' ? outcome.reply.result.content[0]?.text : '';
  if (text !== `echo: x${i}`) throw new Error(`${p.name}: unexpected outcome ${JSON.stringify(outcome)}`);
}

try {
  for (const p of paths) for (let i = 0; i < WARMUP; i++) await call(p, i);
  for (let block = 0; block < BLOCKS; block++) {
    for (const p of block % 2 === 0 ? paths : [...paths].reverse()) {
      const host = process.cpuUsage();
      const child = cpuOf(p.sandbox.pid);
      for (let i = 0; i < 100; i++) {
        const started = performance.now();
        await call(p, i);
        p.latencies.push((performance.now() - started) * 1000);
      }
      const used = process.cpuUsage(host);
      p.hostUs += used.user + used.system;
      p.childUs += cpuOf(p.sandbox.pid) - child;
      p.calls += 100;
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [inFlight, total] of [
      [64, 5_000],
      [5_000, 20_000],
    ]) {
      for (const p of round % 2 === 0 ? paths : [...paths].reverse()) {
        let next = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (next < total) await call(p, next++);
          }),
        );
        p.rates[inFlight].push(total / ((performance.now() - started) / 1000));
      }
    }
  }
} finally {
  for (const p of paths) await p.sandbox.close();
}

const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const median = (values) =>
  at(
    [...values].sort((a, b) => a - b),
    0.5,
  );
console.log(`sandbox paths: ${BLOCKS} blocks of 100 sequential calls per path, ${ROUNDS} bursts per level`);
console.log('path              p50 µs  p95 µs  CPU µs/call host  executor  calls/s @64  @5,000');
for (const p of paths) {
  const sorted = p.latencies.sort((a, b) => a - b);
  console.log(
    [
      p.name.padEnd(16),
      at(sorted, 0.5).toFixed(1).padStart(7),
      at(sorted, 0.95).toFixed(1).padStart(7),
      (p.hostUs / p.calls).toFixed(1).padStart(17),
      (p.childUs / p.calls).toFixed(1).padStart(9),
      Math.round(median(p.rates[64])).toLocaleString('en').padStart(12),
      Math.round(median(p.rates[5000])).toLocaleString('en').padStart(7),
    ].join(' '),
  );
}
