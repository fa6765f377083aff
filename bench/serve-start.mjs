// Spawn → first answers of `toolhost serve` over stdio, as an MCP client starting it sees them:
// `initialize` answered, and the first `tools/list` answered, in ms from spawn. Warm: the
// project was served before (its kept tool list and the plugin manifest cache are there); cold:
// both removed first. The project is this checkout with its example plugins (plugins/), as
// `npm start` serves it. Goal: first tools/list ≤ 300 ms warm. Shown too (no goal), warm: the
// session's first plugin call, sent BENCH_THINK_MS (default 1,000) after the tools/list answer, as
// a client whose model reads the list first sends it.
// Run: `npm run build && node bench/serve-start.mjs` (BENCH_RUNS, default 7 per kind).
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO, TOOLHOST_BIN } from './lib/paths.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 1_000);

/** One serve: spawn, initialize, tools/list; and, when `call`, its first plugin call after a pause. */
async function once(call) {
  const start = performance.now();
  const client = new Client({ name: 'serve-start-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', TOOLHOST_BIN, 'serve', '--root', REPO],
    env: { ...process.env },
    stderr: 'ignore',
  });
  await client.connect(transport);
  const initialized = performance.now() - start;
  const { tools } = await client.listTools();
  const listed = performance.now() - start;
  if (!call) {
    await client.close();
    return { initialized, listed, tools: tools.length };
  }
  await new Promise((resolve) => setTimeout(resolve, THINK_MS));
  const sent = performance.now();
  const result = await client.callTool({ name: 'text_case', arguments: { text: 'first call', to: 'upper' } });
  const called = performance.now() - sent;
  if (result.isError || result.content?.[0]?.text !== 'FIRST CALL') {
    throw new Error(`text_case answered ${JSON.stringify(result)}`);
  }
  await client.close();
  return { initialized, listed, called, tools: tools.length };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const show = (label, runs) =>
  console.log(
    `${label.padEnd(6)} initialize p50 ${median(runs.map((r) => r.initialized)).toFixed(0)} ms, first tools/list p50 ${median(runs.map((r) => r.listed)).toFixed(0)} ms (min ${Math.min(...runs.map((r) => r.listed)).toFixed(0)}, max ${Math.max(...runs.map((r) => r.listed)).toFixed(0)}; ${runs[0].tools} tools; ${runs.length} runs)${runs[0].called === undefined ? '' : `; first plugin call ${THINK_MS} ms later p50 ${median(runs.map((r) => r.called)).toFixed(0)} ms (max ${Math.max(...runs.map((r) => r.called)).toFixed(0)})`}`,
  );

const cold = [];
const warm = [];
for (let i = 0; i < RUNS; i++) {
  rmSync(path.join(REPO, '.toolhost', 'serve-tools.json'), { force: true });
  rmSync(path.join(REPO, '.toolhost', 'cache'), { recursive: true, force: true });
  // Cold: the list may not hold every plugin yet (one still loading joins later), so no call.
  cold.push(await once(false));
  warm.push(await once(true));
}
console.log('toolhost serve over stdio, spawn → first answers (this checkout, its example plugins)');
show('cold', cold);
show('warm', warm);
const p50 = median(warm.map((r) => r.listed));
console.log(`goal: first tools/list ≤ 300 ms warm ${p50 <= 300 ? '✓' : '✗'}`);
if (process.env.BENCH_STRICT === '1' && p50 > 300) process.exit(1);
