// Save-to-visible latency: from a file write to the new descriptor being in the plan, with 1 and
// with 50 plugins loaded, side by side in one run (this machine is noisy: compare the ratios, not
// the absolute numbers). Run with `npm run bench`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost } from '@toolhost/host';
// The watcher's coalescing window (`settleMs` default), read from the build this bench measures.
import { SETTLE_MS } from '../packages/host/dist/host/watch.js';

const EDITS = 50;
const WARMUP = 3;
const SIZES = [1, 50];
const EDIT_TIMEOUT_MS = 10_000;
const PROBE_TIMEOUT_MS = 1_000;

function pluginSource(i, version) {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'p${i}',
  tools: [
    defineTool({
      name: 'p${i}_tool',
      description: 'Tool of plugin p${i}, version ${version}, edited by the bench',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => \`p${i}: \${text}\`,
    }),
  ],
});
`;
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
const median = (values) => quantile(values, 0.5);
const p95 = (values) => quantile(values, 0.95);

function descriptionOf(host, name) {
  return host.plan().visible.find((entry) => entry.descriptor.name === name)?.descriptor.description;
}

async function measure(count) {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-reload-bench-'));
  let host;
  try {
    for (let i = 0; i < count; i++) {
      await mkdir(path.join(root, 'plugins', `p${i}`), { recursive: true });
      await writeFile(path.join(root, 'plugins', `p${i}`, 'index.ts'), pluginSource(i, 'v0'));
    }
    const startedAt = performance.now();
    host = await createHost({
      root,
      builtins: false,
      watch: true,
      sandbox: 'process',
      cache: false,
    });
    const startupMs = performance.now() - startedAt;
    const visible = host.plan().visible.length;
    if (visible !== count) {
      throw new Error(`${count} plugins: ${visible} tools visible after start, expected ${count}`);
    }

    // Every change event of the run, so extra rebuilds are seen even when they come after a match.
    const changes = [];
    let waiter;
    host.on('change', (change) => {
      changes.push(change);
      waiter?.(change);
    });
    const errors = [];
    host.on('error', (error) => errors.push(error));

    const entry = path.join(root, 'plugins', 'p0', 'index.ts');
    /** Writes p0 with description `version <version>`; resolves at the first change that shows it. */
    const edit = async (version, timeoutMs) => {
      const seenBefore = changes.length;
      const matched = new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          const seen = changes
            .slice(seenBefore)
            .map(
              (c) =>
                `#${c.version} ${c.cause} changed=[${c.changed}] hidden=[${c.newlyHidden.map((h) => h.name)}]`,
            );
          const error = new Error(
            `${count} plugins, edit ${version}: not visible after ${timeoutMs} ms; ` +
              `p0_tool description is ${JSON.stringify(descriptionOf(host, 'p0_tool'))}; ` +
              `change events since the write: ${seen.length === 0 ? 'none' : seen.join('; ')}; ` +
              `host errors: ${errors.length === 0 ? 'none' : errors.map((e) => e.message).join('; ')}`,
          );
          error.timedOut = true;
          reject(error);
        }, timeoutMs);
        waiter = (change) => {
          if (!descriptionOf(host, 'p0_tool')?.includes(`version ${version},`)) return;
          clearTimeout(timer);
          waiter = undefined;
          resolve({ change, at: performance.now() });
        };
      });
      const t0 = performance.now();
      await writeFile(entry, pluginSource(0, version));
      const { change, at } = await matched;
      return { change, latency: at - t0, events: changes.length - seenBefore };
    };

    // `createHost({ watch: true })` can resolve before chokidar watches the plugins folder (see the
    // note printed below): a write made right then is never reported. Probe until one is seen.
    let lostProbes = 0;
    for (;;) {
      try {
        await edit(`probe${lostProbes}`, PROBE_TIMEOUT_MS);
        break;
      } catch (error) {
        if (!error.timedOut || lostProbes >= 20) throw error;
        lostProbes++;
      }
    }

    const latencies = [];
    const durations = [];
    const perEdit = [];
    let measuredStart = 0;
    for (let k = 1; k <= WARMUP + EDITS; k++) {
      const version = `v${k}`;
      if (k === WARMUP + 1) measuredStart = changes.length;
      const { change, latency, events } = await edit(version, EDIT_TIMEOUT_MS);
      if (k <= WARMUP) continue;
      latencies.push(latency);
      durations.push(change.durationMs);
      perEdit.push({ version, events, change });
    }
    // Give a late duplicate batch (after the last edit's match) a chance to show up: well past the
    // watcher's settle window plus a rebuild.
    await new Promise((resolve) => setTimeout(resolve, 10 * SETTLE_MS + 500));
    const anomalies = [];
    for (const e of perEdit) {
      if (e.events !== 1)
        anomalies.push(`edit ${e.version}: ${e.events} change events before it was visible`);
      const c = e.change;
      if (c.cause !== 'plugins:p0') anomalies.push(`edit ${e.version}: cause "${c.cause}"`);
      if (c.changed.length !== 1 || c.changed[0] !== 'p0_tool') {
        anomalies.push(`edit ${e.version}: changed=[${c.changed}]`);
      }
      if (c.added.length + c.removed.length + c.newlyHidden.length + c.newlyVisible.length > 0) {
        anomalies.push(
          `edit ${e.version}: added=[${c.added}] removed=[${c.removed}] newlyHidden=[${c.newlyHidden.map((h) => h.name)}] newlyVisible=[${c.newlyVisible}]`,
        );
      }
    }
    const lastMatch = changes.indexOf(perEdit.at(-1).change);
    const trailing = changes.slice(lastMatch + 1);
    if (trailing.length > 0) {
      anomalies.push(
        `${trailing.length} change event(s) after the last edit: ${trailing.map((c) => c.cause).join(', ')}`,
      );
    }
    const totalMeasured = changes.length - measuredStart;
    for (const error of errors) anomalies.push(`host error (${error.kind}): ${error.message}`);
    return {
      count,
      startupMs,
      lostProbes,
      latencies,
      durations,
      overheads: latencies.map((l, i) => l - durations[i]),
      totalMeasured,
      anomalies,
    };
  } finally {
    await host?.close();
    await rm(root, { recursive: true, force: true });
  }
}

const runStarted = performance.now();
const rows = [];
for (const count of SIZES) rows.push(await measure(count));
const runSeconds = (performance.now() - runStarted) / 1000;

console.log(
  `save-to-visible: write of plugins/p0/index.ts → p0_tool's new description in host.plan().visible; ` +
    `${EDITS} edits (+${WARMUP} warm-up, not counted), process sandbox, cache off`,
);
console.log(
  `watcher coalescing window (settleMs, watch.ts default): ${SETTLE_MS} ms of quiet after the last file event — part of every latency below`,
);
console.log(
  'plugins'.padEnd(8),
  'start ms'.padStart(9),
  'median ms'.padStart(10),
  'p95 ms'.padStart(8),
  'ratio'.padStart(7),
  'rebuild med'.padStart(12),
  'p95'.padStart(7),
  'ratio'.padStart(7),
  'watch+settle med'.padStart(17),
  'events'.padStart(7),
);
const base = rows[0];
for (const r of rows) {
  console.log(
    String(r.count).padEnd(8),
    r.startupMs.toFixed(0).padStart(9),
    median(r.latencies).toFixed(1).padStart(10),
    p95(r.latencies).toFixed(1).padStart(8),
    `${(median(r.latencies) / median(base.latencies)).toFixed(2)}×`.padStart(7),
    median(r.durations).toFixed(1).padStart(12),
    p95(r.durations).toFixed(1).padStart(7),
    `${(median(r.durations) / median(base.durations)).toFixed(2)}×`.padStart(7),
    median(r.overheads).toFixed(1).padStart(17),
    `${r.totalMeasured}/${EDITS}`.padStart(7),
  );
}
console.log(
  'rebuild = the host’s own change.durationMs (bundle + describe + swap, no watcher delay); ' +
    'watch+settle = latency − rebuild, per edit; events = change events during the measured edits',
);
let clean = true;
for (const r of rows) {
  if (r.lostProbes === 0) continue;
  clean = false;
  console.log(
    `HOST BUG (${r.count} plugins): ${r.lostProbes} write(s) of p0 made right after createHost({ watch: true }) ` +
      'resolved never produced a change event (the watcher was not watching yet; a later write was seen). ' +
      'chokidar emits `ready` early when a watched path is missing — here toolhost.config.json.',
  );
}
for (const r of rows) {
  for (const anomaly of r.anomalies) {
    clean = false;
    console.log(`ANOMALY (${r.count} plugins): ${anomaly}`);
  }
}
if (clean) console.log('one rebuild per edit, nothing else changed, no host errors');
console.log(`total runtime: ${runSeconds.toFixed(1)} s`);
