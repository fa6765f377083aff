// The scale benchmark: what a project of 1, 100 and 1,000 plugins (generated, three tools each,
// bench/scale-plugins.mjs) costs to start, to keep in memory and to edit, in the process sandbox.
// Every figure comes from a fresh process (bench/scale-phase.mjs), so nothing built once per
// process is warm:
// - cold start: `createHost` to resolved with an empty `.toolhost/cache/`;
// - warm start: the same with the cache a previous start left (nothing changed);
//   cold and warm runs alternate, so load drift on this noisy machine hits both alike;
// - memory: RSS of the host process (build worker included) and of the executor process, before
//   any call, after one call into every plugin, and after the isolates' idle time;
// - save → visible: a write of plugins/p0/index.ts until the change event shows the new
//   description, and until an MCP client (the SDK's, over streamable HTTP) hears
//   `notifications/tools/list_changed` with it in the plan; median and p95.
// Run: `npm run bench`, or `npm run build && node --no-node-snapshot bench/scale.mjs`.
// Environment: SCALE_SIZES (default "1,100,1000"), SCALE_RUNS (start runs of each kind, default 3;
// 1,000 plugins run 2), SCALE_EDITS (30), SCALE_JSON=<file> (write the results there).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePlugins } from './scale-plugins.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SIZES = (process.env.SCALE_SIZES ?? '1,100,1000').split(',').map(Number);
const RUNS = Number(process.env.SCALE_RUNS ?? 3);
/** The isolates' idle time the memory phase sets (through the config file) after its calls. */
const IDLE_SECONDS = 2;
// SCALE_NO_IDLE=1 measures a build without the idle setting (before it existed).
const IDLE = process.env.SCALE_NO_IDLE !== '1';
const HOST_OPTIONS = {};

function runPhase(phase, root, count, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--no-node-snapshot', path.join(here, 'scale-phase.mjs'), phase, root, String(count)],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${phase} phase exited ${code}: ${err.trim()}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

async function measure(count) {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-scale-'));
  try {
    await writePlugins(root, count);
    const env = { SCALE_HOST_OPTIONS: JSON.stringify(HOST_OPTIONS) };
    const cold = [];
    const warm = [];
    const runs = count >= 1000 ? Math.min(RUNS, 2) : RUNS;
    for (let r = 0; r < runs; r++) {
      await rm(path.join(root, '.toolhost'), { recursive: true, force: true });
      cold.push(await runPhase('start', root, count, env));
      warm.push(await runPhase('start', root, count, env));
    }
    const memory = await runPhase('memory', root, count, {
      ...env,
      SCALE_IDLE_SECONDS: String(IDLE ? IDLE_SECONDS : 0),
    });
    const save = await runPhase('save', root, count, env);
    return { count, cold, warm, memory, save };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const results = [];
for (const count of SIZES) {
  const row = await measure(count);
  results.push(row);
  const c = row.cold.map((r) => r.ms);
  const w = row.warm.map((r) => r.ms);
  const m = row.memory;
  console.log(
    `${String(count).padStart(5)} plugins | cold start ${fmt(median(c))} ms (${c.map(fmt).join(', ')}) | ` +
      `warm start ${fmt(median(w))} ms (${w.map(fmt).join(', ')}), isolates after warm start ${row.warm[0].isolates} | ` +
      `host RSS after cold start ${fmt(median(row.cold.map((r) => r.hostMb)))} MB`,
  );
  // What each live isolate adds to the executor, beyond the process with one plugin called.
  const perPlugin = (mb) =>
    m.liveAfterCalls > 1 ? fmt((mb - m.first.executorMb) / (m.liveAfterCalls - 1)) : '–';
  console.log(
    `      memory MB | before calls: host ${fmt(m.before.hostMb)}, executor ${fmt(m.before.executorMb)} | ` +
      `executor with one plugin called ${fmt(m.first.executorMb)} | after one call each: host ${fmt(m.called.hostMb)}, executor ${fmt(m.called.executorMb)} ` +
      `(${perPlugin(m.called.executorMb)} MB per live isolate, ${m.liveAfterCalls} isolates live; peak host + executor ${fmt(Math.max(m.peak.hostMb + m.peak.executorMb, m.called.hostMb + m.called.executorMb))})` +
      (m.idle === undefined
        ? ''
        : ` | ${IDLE_SECONDS} s idle time set, after it: host ${fmt(m.idle.hostMb)}, executor ${fmt(m.idle.executorMb)}, ${m.idle.live} isolates live`),
  );
  console.log(
    `      save → visible (${row.save.edits} edits) | change event median ${fmt(row.save.change.median)} ms, p95 ${fmt(row.save.change.p95)} | ` +
      `MCP list_changed median ${fmt(row.save.listChanged.median)} ms, p95 ${fmt(row.save.listChanged.p95)} | ` +
      `rebuild median ${fmt(row.save.rebuild.median)} ms, of which the whole Map and plan (merge, plan, diff, swap) ${fmt(row.save.swap.median)} ms`,
  );
  if (count === 100) {
    const perIsolate =
      m.liveAfterCalls > 1 ? (m.called.executorMb - m.first.executorMb) / (m.liveAfterCalls - 1) : Number.NaN;
    const mark = (ok) => (ok ? '✓' : '✗');
    console.log(
      `      goals at 100 plugins | cold start ≤ 1500 ms ${mark(median(c) <= 1500)} | warm start ≤ 150 ms ${mark(median(w) <= 150)} | ` +
        `≤ 3 MB per live isolate ${mark(perIsolate <= 3)} | save → visible ≤ 60 ms median ${mark(row.save.change.median <= 60)}` +
        ' (cold start: see bench/scale-floor.mjs for what this machine cannot go under)',
    );
  }
}
if (process.env.SCALE_JSON) await writeFile(process.env.SCALE_JSON, JSON.stringify(results, null, 2));
