// What each way of running a tool costs per call, side by side in one run (this machine is noisy:
// compare the ratios, not the absolute numbers). Run with `npm run bench`.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

const here = path.dirname(fileURLToPath(import.meta.url));
const SEQUENTIAL = 2_000;
const CONCURRENT = 4_000;
const IN_FLIGHT = 64;

const echo = defineTool({
  name: 'healthy_echo_inproc',
  description: 'In-process echo',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function measure(session, name) {
  for (let i = 0; i < 200; i++) await session.call(name, { text: 'warm' });
  const samples = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const started = performance.now();
    const outcome = await session.call(name, { text: 'hi' });
    samples.push(performance.now() - started);
    if (outcome.result.isError) throw new Error(JSON.stringify(outcome.result));
  }
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < CONCURRENT) await session.call(name, { text: 'hi' });
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { medianUs: median(samples) * 1000, perSecond: CONCURRENT / seconds };
}

const root = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-'));
await cp(
  path.join(here, '..', 'test', 'fixtures', 'plugins', 'healthy'),
  path.join(root, 'plugins', 'healthy'),
  {
    recursive: true,
  },
);
const rows = [];
const inproc = await createHost({ root, builtins: false, customTools: [echo] });
rows.push(['in-process tool (custom)', await measure(inproc.session(), 'healthy_echo_inproc')]);
for (const sandbox of ['inline', 'process']) {
  const host = await createHost({ root, builtins: false, plugins: { sandbox, cache: false } });
  rows.push([`plugin, ${sandbox} sandbox`, await measure(host.session(), 'healthy_echo')]);
  await host.close();
}
await rm(root, { recursive: true, force: true });

const base = rows[0][1];
console.log(
  `sequential: median of ${SEQUENTIAL} calls; concurrent: ${CONCURRENT} calls, ${IN_FLIGHT} in flight`,
);
console.log(
  'path'.padEnd(28),
  'median µs'.padStart(10),
  'ratio'.padStart(8),
  'calls/s'.padStart(10),
  'ratio'.padStart(8),
);
for (const [label, r] of rows) {
  console.log(
    label.padEnd(28),
    r.medianUs.toFixed(1).padStart(10),
    `${(r.medianUs / base.medianUs).toFixed(1)}×`.padStart(8),
    r.perSecond.toFixed(0).padStart(10),
    `${(base.perSecond / r.perSecond).toFixed(1)}×`.padStart(8),
  );
}
const inline = rows[1][1];
const proc = rows[2][1];
console.log(
  `process boundary: +${(proc.medianUs - inline.medianUs).toFixed(0)} µs per sequential call (${(proc.medianUs / inline.medianUs).toFixed(2)}× inline)`,
);
