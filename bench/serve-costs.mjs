// What authentication, the audit trail and tracing cost per served call, side by side in one
// process: four HTTP servers of one host (an in-process echo tool, so serving is what is
// measured), each called by the SDK's v2 client over a 2025 session, in interleaved blocks:
//   plain    no token (allowUnauthenticated), no audit, no SDK registered
//   +auth    the project's bearer token checked on every request
//   +audit   and the audit trail written
//   +trace   and an OpenTelemetry SDK registered (spans batched as an OTLP exporter would be, then
//            dropped; the metric recorded)
// Run after `npm run build`: `node --no-node-snapshot bench/serve-costs.mjs`. Report ratios of
// medians: absolute figures drift 2-3x from one minute to the next on a shared machine.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createHost, serveHttp } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const BLOCK = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

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

async function server(label, options, sdk = false) {
  const served = await serveHttp(host, options);
  const client = new Client({ name: 'bench', version: '1' });
  const headers = served.token === undefined ? {} : { authorization: `Bearer ${served.token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers } }));
  return { label, served, client, sdk, samples: [], cpu: [] };
}

// BENCH_PATHS=plain,+trace runs only those (to profile one path with `node --cpu-prof`).
const only = process.env.BENCH_PATHS?.split(',');
const wanted = (label) => only === undefined || only.includes(label);
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
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await entry.client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
      if (keep) entry.samples.push(performance.now() - started);
    }
    if (keep) {
      const used = process.cpuUsage(cpu);
      entry.cpu.push((used.user + used.system) / n);
    }
  } finally {
    if (entry.sdk) unregisterSdk();
  }
}

for (let done = 0; done < WARMUP; done += BLOCK) for (const entry of paths) await block(entry, BLOCK, false);
// The order turns every round, so no path always runs first or after the same neighbour.
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < paths.length; k++) await block(paths[(round + k) % paths.length], BLOCK, true);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const base = median(paths[0].samples);
const baseCpu = median(paths[0].cpu);
console.log(
  `serve costs: ${ROUNDS * BLOCK} calls per path after ${WARMUP} warm-up calls each, interleaved blocks of ${BLOCK}`,
);
// CPU per call (client and server, one process; the median of the blocks): less moved by other
// work on the machine than the wall-clock time, which waits for the cores too.
console.log('path      p50 µs   vs plain   CPU µs/call   vs plain');
for (const entry of paths) {
  const p50 = median(entry.samples);
  const cpu = median(entry.cpu);
  console.log(
    `${entry.label.padEnd(8)}  ${(p50 * 1000).toFixed(0).padStart(7)}   ${(p50 / base).toFixed(3)}x   ${cpu.toFixed(0).padStart(11)}   ${(cpu / baseCpu).toFixed(3)}x`,
  );
}
if (paths.length === 5) {
  const all = median(paths[4].samples);
  const allCpu = median(paths[4].cpu);
  console.log(`noise: plain 2 vs plain ${(((median(paths[1].samples) - base) / base) * 100).toFixed(1)} %`);
  console.log(
    `auth + audit + tracing together: +${(((all - base) / base) * 100).toFixed(1)} % of a served call, CPU +${(((allCpu - baseCpu) / baseCpu) * 100).toFixed(1)} % (goal: <= 10 %)`,
  );
}

for (const entry of paths) {
  await entry.client.close();
  await entry.served.close();
}
await host.close();
await rm(root, { recursive: true, force: true });
