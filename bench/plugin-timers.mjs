// What plugin timers cost the host: one call starts BENCH_TIMERS intervals of BENCH_MS ms and
// lets them tick for BENCH_FOR_MS; prints the ticks the plugin saw, the CPU the host process spent
// (it serves every timer's sleep) and, in the process sandbox, the executor's, per second of wall
// clock, and how the call ended. Plugin: bench/fixtures/plugins/timers.
//
// Run: `npm run build && node --no-node-snapshot bench/plugin-timers.mjs`.
// Environment: BENCH_TIMERS (1000), BENCH_MS (1), BENCH_FOR_MS (2000).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, InlineSandbox, ProcessSandbox } from '@toolhost/host/internal';
import { setting } from './lib/settings.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const TIMERS = setting('BENCH_TIMERS', 1000);
const MS = setting('BENCH_MS', 1);
const FOR_MS = setting('BENCH_FOR_MS', 2000);

const built = await bundlePlugin(path.join(here, 'fixtures', 'plugins', 'timers', 'index.ts'));
if (!built.ok) throw new Error(built.error);

/** CPU time of a process so far, ms (Linux: utime + stime from /proc). */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function run(sandbox) {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: FOR_MS + 10_000 };
  const version = sandbox.load('timers', built.code, limits);
  const request = (input) => ({
    callId: `c${Math.random()}`,
    toolName: 'timers_run',
    toolUseId: 't',
    sessionId: 's',
    input,
    config: null,
    env: {},
    envGranted: [],
    maxResultChars: 10_000,
  });
  const call = (input) =>
    sandbox.call(
      'timers',
      version,
      request(input),
      async () => null,
      { log() {}, progress() {} },
      new AbortController().signal,
    );
  await call({ n: 1, ms: 1, forMs: 10 }); // the isolate is made outside the measurement
  const pid = sandbox.pid;
  const hostBefore = process.cpuUsage();
  const executorBefore = pid === undefined ? 0 : processCpuMs(pid);
  const started = performance.now();
  const outcome = await call({ n: TIMERS, ms: MS, forMs: FOR_MS });
  const wallS = (performance.now() - started) / 1000;
  const host = process.cpuUsage(hostBefore);
  const hostMs = (host.user + host.system) / 1000;
  const executorMs = pid === undefined ? undefined : processCpuMs(pid) - executorBefore;
  const reply = outcome.kind === 'reply' ? outcome.reply : outcome;
  const result = reply.kind === 'ok' ? JSON.parse(reply.result.content[0].text) : reply;
  return {
    sandbox: sandbox.mode,
    ended: reply.kind === 'ok' ? 'ok' : (reply.limit ?? reply.kind),
    message: reply.kind === 'ok' ? undefined : reply.message,
    timers: result.started,
    refused: result.refused || undefined,
    ticksPerS: result.ticks === undefined ? undefined : Math.round(result.ticks / wallS),
    hostCpuMsPerS: Math.round(hostMs / wallS),
    executorCpuMsPerS: executorMs === undefined ? undefined : Math.round(executorMs / wallS),
    wallS: Number(wallS.toFixed(2)),
  };
}

for (const make of [() => new InlineSandbox(), () => new ProcessSandbox()]) {
  const sandbox = make();
  try {
    console.log(JSON.stringify(await run(sandbox)));
  } finally {
    await sandbox.close();
  }
}
