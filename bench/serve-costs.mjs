// What authentication, the audit trail and tracing cost per served call, side by side in one
// process. Two tools, each behind five HTTP servers of one host, each server called by the SDK's
// v2 client over a 2025 session, in interleaved blocks:
//   plain    no token (allowUnauthenticated), no audit, no SDK registered
//   plain 2  the same as plain: the noise of this run
//   +auth    the project's bearer token checked on every request
//   +audit   and the audit trail written
//   +trace   and an OpenTelemetry SDK registered (spans batched as an OTLP exporter would be, then
//            dropped; the metric recorded)
// The tools: an in-process echo (serving is all its call does: the largest share the three can
// take), and bench/boundary.mjs's echo plugin in its default sandbox, a jailed executor process
// (a plugin tool's served call as an operator runs it).
// Run after `npm run build`: `node --no-node-snapshot bench/serve-costs.mjs`. Report ratios:
// absolute figures drift 2-3x from one minute to the next on a shared machine. The headline is
// the paired ratio (each round's block median over plain's in the same round, the median of the
// rounds), which a slow minute moves on both sides.
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createHost, serveHttp } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { ECHO_PLUGIN } from './lib/paths.mjs';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const BLOCK = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);

class DropReader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}
const dropExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
// One SDK, registered for the +trace blocks only (the globals are process-wide).
const tracerProvider = new TracerProvider({
  spanProcessors: [new BatchSpanProcessor({ exporter: dropExporter })],
});
const meterProvider = new MeterProvider({ readers: [new DropReader()] });
function registerSdk() {
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
}
function unregisterSdk() {
  trace.disable();
  metrics.disable();
}

const root = await mkdtemp(path.join(tmpdir(), 'toolhost-serve-costs-'));
await mkdir(path.join(root, 'plugins'));
await cp(ECHO_PLUGIN, path.join(root, 'plugins', 'echo'), { recursive: true });

// BENCH_PATHS=plain,+trace runs only those (to profile one path with `node --cpu-prof`);
// BENCH_TOOLS=in-process (or plugin) one of the two tools.
const only = process.env.BENCH_PATHS?.split(',');
const wanted = (label) => only === undefined || only.includes(label);
const tools = process.env.BENCH_TOOLS?.split(',') ?? ['in-process', 'plugin'];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)];
const percent = (ratio) => `${((ratio - 1) * 100).toFixed(1)} %`;
/** The same, signed: `+9.1 %`, `-3.2 %` (a small run's noise can make the three look free). */
const signed = (ratio) => `${ratio >= 1 ? '+' : ''}${percent(ratio)}`;
/** Issue 28's goal: the three together cost at most this ratio of a plain served call (+10 %). */
const GOAL = 1.1;

/**
 * The five paths over one host, measured in interleaved blocks; prints the table and returns the
 * paired cost of all three together.
 */
async function measure(title, host, tool, text) {
  async function server(label, options, sdk = false) {
    const served = await serveHttp(host, options);
    const client = new Client({ name: 'bench', version: '1' });
    const headers = served.token === undefined ? {} : { authorization: `Bearer ${served.token}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers } }),
    );
    // samples: every timed call; rounds: each round's block median (for the paired ratios below).
    return { label, served, client, sdk, samples: [], rounds: [], cpu: [] };
  }
  const paths = [
    wanted('plain') && (await server('plain', { auth: { allowUnauthenticated: true }, audit: false })),
    // The same as plain: how far two identical paths differ in this run (the noise).
    wanted('plain 2') && (await server('plain 2', { auth: { allowUnauthenticated: true }, audit: false })),
    wanted('+auth') && (await server('+auth', { audit: false })),
    wanted('+audit') && (await server('+audit', {})),
    wanted('+trace') && (await server('+trace', {}, true)),
  ].filter(Boolean);

  async function block(entry, n, keep) {
    if (entry.sdk) registerSdk();
    try {
      const cpu = process.cpuUsage();
      const times = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        const result = await entry.client.callTool({ name: tool, arguments: { text: `call ${i}` } });
        if (keep) times.push(performance.now() - started);
        if (i === 0 && result.content?.[0]?.text !== text(`call ${i}`)) {
          throw new Error(`${entry.label}: ${tool} answered ${JSON.stringify(result)}`);
        }
      }
      if (keep) {
        entry.samples.push(...times);
        entry.rounds.push(median(times));
        const used = process.cpuUsage(cpu);
        entry.cpu.push((used.user + used.system) / n);
      }
    } finally {
      if (entry.sdk) unregisterSdk();
    }
  }

  for (let done = 0; done < WARMUP; done += BLOCK)
    for (const entry of paths) await block(entry, BLOCK, false);
  // The order turns every round, so no path always runs first or after the same neighbour.
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < paths.length; k++) await block(paths[(round + k) % paths.length], BLOCK, true);
  }

  const base = median(paths[0].samples);
  const baseCpu = median(paths[0].cpu);
  console.log(
    `\n${title}: ${ROUNDS * BLOCK} calls per path after ${WARMUP} warm-up calls each, interleaved blocks of ${BLOCK}`,
  );
  // Paired: each round's block median over plain's block median in the same round, so a slow
  // minute of the machine moves both sides of a ratio; the median of the rounds, with its quartiles.
  const paired = (entry) => entry.rounds.map((value, round) => value / paths[0].rounds[round]);
  // CPU per call of this process (client and server; a plugin's executor process is not counted),
  // the median of the blocks.
  console.log('path      p50 µs   vs plain   paired (quartiles)       CPU µs/call   vs plain');
  for (const entry of paths) {
    const p50 = median(entry.samples);
    const cpu = median(entry.cpu);
    const ratios = paired(entry);
    const spread = `${median(ratios).toFixed(3)}x (${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)})`;
    console.log(
      `${entry.label.padEnd(8)}  ${(p50 * 1000).toFixed(0).padStart(7)}   ${(p50 / base).toFixed(3)}x   ${spread.padEnd(23)}  ${cpu.toFixed(0).padStart(11)}   ${(cpu / baseCpu).toFixed(3)}x`,
    );
  }
  let together;
  if (paths.length === 5) {
    const all = median(paths[4].samples);
    const allCpu = median(paths[4].cpu);
    together = median(paired(paths[4]));
    console.log(
      `noise: plain 2 vs plain ${percent(median(paths[1].samples) / base)}, paired ${percent(median(paired(paths[1])))}`,
    );
    console.log(
      `auth + audit + tracing together: ${signed(together)} of a served call (paired; pooled ${signed(all / base)}), CPU ${signed(allCpu / baseCpu)}`,
    );
  }
  for (const entry of paths) {
    await entry.client.close();
    await entry.served.close();
  }
  return together;
}

const results = [];
if (tools.includes('in-process')) {
  // An in-process echo: serving is all a call does, so this is the largest share the three can take.
  const host = await createHost({
    root,
    builtins: false,
    pluginsDir: false,
    configFile: false,
    customTools: [
      defineTool({
        name: 'echo',
        description: 'Echoes',
        input: z.object({ text: z.string() }),
        execute: ({ text }) => text,
      }),
    ],
  });
  results.push([
    'an in-process tool (serving alone)',
    await measure('in-process echo', host, 'echo', (t) => t),
  ]);
  await host.close();
}
if (tools.includes('plugin')) {
  // The echo plugin of bench/boundary.mjs in its default sandbox (a jailed executor process): the
  // served call of a plugin tool as an operator runs it.
  const host = await createHost({ root, builtins: false, configFile: false });
  results.push([
    'a plugin tool (process sandbox, the default)',
    await measure('echo plugin, process sandbox', host, 'echo_text', (t) => `echo: ${t}`),
  ]);
  await host.close();
}
console.log('');
for (const [what, together] of results) {
  if (together !== undefined) {
    const goal = `≤ ${Math.round((GOAL - 1) * 100)} % ${together <= GOAL ? '✓' : '✗'}`;
    console.log(`auth + audit + tracing, ${what}: ${signed(together)} of its served call (goal: ${goal})`);
  }
}
await rm(root, { recursive: true, force: true });
