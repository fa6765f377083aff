// What running code mode's scripts in the executor process costs: one `run_code` call whose
// script makes 20 tool calls (one after another, then 20 at once) in a host with `sandbox: 'inline'`
// (the script's isolate in this process) and one with `sandbox: 'process'` (in the executor; each
// tool call crosses the channel to the host and back). Method: BENCH_WARMUP runs per host, then
// BENCH_BLOCKS rounds of a 20-run block per host (order alternating), for p50/p95 wall time of
// the whole `session.call('run_code', …)`. Every result is checked.
//
// Run: `npm run build && node --no-node-snapshot bench/code-mode-hop.mjs`.
// Environment: BENCH_BLOCKS (15), BENCH_WARMUP (100).
// This machine is noisy: compare the hosts of one run, not runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, resultText } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { setting } from './lib/settings.mjs';

const BLOCKS = setting('BENCH_BLOCKS', 15);
const WARMUP = setting('BENCH_WARMUP', 100);
const BLOCK = 20;

if (!process.execArgv.includes('--no-node-snapshot')) {
  console.error('bench: run with node --no-node-snapshot (isolated-vm needs it)');
  process.exit(2);
}

const SCRIPTS = {
  sequential: `let sum = 0; for (let i = 0; i < 20; i++) sum += (await tools.echo({ n: i })).n; return sum;`,
  parallel: `const all = await Promise.all(Array.from({ length: 20 }, (_, i) => tools.echo({ n: i }))); return all.reduce((s, r) => s + r.n, 0);`,
};

const root = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-code-'));
const hosts = [];
for (const sandbox of ['inline', 'process']) {
  const host = await createHost({
    root,
    builtins: false,
    pluginsDir: false,
    sandbox,
    availability: { env: {} },
  });
  host.addTool(
    defineTool({
      name: 'echo',
      description: 'Echoes its input',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => ({ content: [], structuredContent: { n } }),
    }),
  );
  hosts.push({ name: sandbox, host, session: host.session({ codeMode: true }) });
}

async function once(entry, code) {
  const start = performance.now();
  const { result } = await entry.session.call('run_code', { code });
  const ms = performance.now() - start;
  if (result.isError === true || !resultText(result).includes('190'))
    throw new Error(`${entry.name}: unexpected result ${resultText(result)}`);
  return ms;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

for (const [kind, code] of Object.entries(SCRIPTS)) {
  for (const entry of hosts) for (let i = 0; i < WARMUP; i++) await once(entry, code);
  const times = new Map(hosts.map((entry) => [entry.name, []]));
  for (let block = 0; block < BLOCKS; block++) {
    const order = block % 2 === 0 ? hosts : [...hosts].reverse();
    for (const entry of order)
      for (let i = 0; i < BLOCK; i++) times.get(entry.name).push(await once(entry, code));
  }
  const p50 = Object.fromEntries([...times].map(([name, list]) => [name, percentile(list, 50)]));
  for (const [name, list] of times) {
    console.log(
      `${kind.padEnd(10)} sandbox ${name.padEnd(7)}: p50 ${percentile(list, 50).toFixed(2)} ms, p95 ${percentile(list, 95).toFixed(2)} ms (${list.length} runs)`,
    );
  }
  console.log(`${kind.padEnd(10)} process/inline p50: ${(p50.process / p50.inline).toFixed(2)}×`);
}

for (const entry of hosts) await entry.host.close();
await rm(root, { recursive: true, force: true });
