// What idle eviction and the LRU cap give back: the executor process's RSS after N plugins were
// each called once, with the cap above N (every isolate stays) and with a cap of M; then after
// the idle time has passed. Plugins are copies of bench/fixtures/plugins/echo under N ids.
//
// Run: `npm run build && node --no-node-snapshot bench/isolate-eviction.mjs`.
// Environment: BENCH_PLUGINS (100), BENCH_CAP (20).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, ProcessSandbox } from '@toolhost/host/internal';

const here = path.dirname(fileURLToPath(import.meta.url));
const PLUGINS = Number(process.env.BENCH_PLUGINS ?? 100);
const CAP = Number(process.env.BENCH_CAP ?? 20);

const built = await bundlePlugin(path.join(here, 'fixtures', 'plugins', 'echo', 'index.ts'));
if (!built.ok) throw new Error(built.error);

/** Resident set of a process, MB (Linux). */
function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
}

async function callEach(sandbox, versions) {
  for (const [i, version] of versions.entries()) {
    const outcome = await sandbox.call(
      `echo${i}`,
      version,
      {
        callId: `c${i}`,
        toolName: 'echo_text',
        toolUseId: `t${i}`,
        sessionId: 's',
        input: { text: 'x' },
        config: null,
        env: {},
        envGranted: [],
        maxResultChars: 10_000,
      },
      async () => null,
      { log() {}, progress() {} },
      new AbortController().signal,
    );
    if (outcome.kind !== 'reply' || outcome.reply.kind !== 'ok') throw new Error(JSON.stringify(outcome));
  }
}

async function run(maxLive) {
  const sandbox = new ProcessSandbox({ isolates: { idleMs: 60_000, maxLive } });
  try {
    const versions = Array.from({ length: PLUGINS }, (_, i) =>
      sandbox.load(`echo${i}`, built.code, DEFAULT_SANDBOX_LIMITS),
    );
    await callEach(sandbox, versions);
    const called = { stats: await sandbox.isolateStats(), rss: rssMb(sandbox.pid) };
    sandbox.configureIsolates({ idleMs: 1, maxLive });
    while ((await sandbox.isolateStats()).live > 0) await new Promise((r) => setTimeout(r, 20));
    const idle = { stats: await sandbox.isolateStats(), rss: rssMb(sandbox.pid) };
    return { called, idle };
  } finally {
    await sandbox.close();
  }
}

for (const maxLive of [PLUGINS + 1, CAP]) {
  const { called, idle } = await run(maxLive);
  console.log(
    `${PLUGINS} plugins called once, cap ${maxLive}: ${called.stats.live} live, executor RSS ` +
      `${called.rss.toFixed(0)} MB (evicted at the cap: ${called.stats.evicted.cap}); ` +
      `all idle and evicted: RSS ${idle.rss.toFixed(0)} MB`,
  );
}
