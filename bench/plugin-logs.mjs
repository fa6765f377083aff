// What a plugin's log flood costs the host: one call logs BENCH_LINES lines of BENCH_BYTES bytes
// (the attack that pushed 354 MB in 2 s); prints, per sandbox, the lines and bytes that reached
// the call's sink, the host process's CPU and the call's wall time. Plugin:
// bench/fixtures/plugins/chatty.
//
// Run: `npm run build && node --no-node-snapshot bench/plugin-logs.mjs`.
// Environment: BENCH_LINES (1000000), BENCH_BYTES (350).
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, InlineSandbox, ProcessSandbox } from '@toolhost/host/internal';
import { setting } from './lib/settings.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const LINES = setting('BENCH_LINES', 1_000_000);
const BYTES = setting('BENCH_BYTES', 350);

const built = await bundlePlugin(path.join(here, 'fixtures', 'plugins', 'chatty', 'index.ts'));
if (!built.ok) throw new Error(built.error);

async function run(sandbox) {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 120_000, cpuMs: 120_000 };
  const version = sandbox.load('chatty', built.code, limits);
  let lines = 0;
  let bytes = 0;
  const sinks = {
    log(_level, message) {
      lines += 1;
      bytes += Buffer.byteLength(message);
    },
    progress() {},
  };
  const call = (input, id) =>
    sandbox.call(
      'chatty',
      version,
      {
        callId: id,
        toolName: 'chatty_log',
        toolUseId: 't',
        sessionId: 's',
        input,
        config: null,
        env: {},
        envGranted: [],
        maxResultChars: 10_000,
      },
      async () => null,
      sinks,
      new AbortController().signal,
    );
  await call({ lines: 1, bytes: 1 }, 'warm');
  lines = 0;
  bytes = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await call({ lines: LINES, bytes: BYTES }, 'flood');
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    sandbox: sandbox.mode,
    ended: outcome.kind === 'reply' ? outcome.reply.kind : outcome.limit,
    linesDelivered: lines,
    mbDelivered: Number((bytes / 1e6).toFixed(1)),
    hostCpuMs: Math.round((used.user + used.system) / 1000),
    wallMs: Math.round(wallMs),
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
