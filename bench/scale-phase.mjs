// One phase of bench/scale.mjs, in a fresh process (so nothing a process builds once, such as the
// sandbox runtime or the build worker, is already warm): `start`, `memory` or `save`. Prints one
// JSON line with its figures on stdout. Not meant to be run by hand; see bench/scale.mjs.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost, serveHttp } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { childrenByParent, isExecutorProcess, withDescendants } from './lib/proc.mjs';
import { pluginSource } from './scale-plugins.mjs';

const [phase, root, countText] = process.argv.slice(2);
const count = Number(countText);
const options = JSON.parse(process.env.SCALE_HOST_OPTIONS ?? '{}');
const EDIT_TIMEOUT_MS = 20_000;

/** Resident memory of a process, MB (VmRSS), or 0 when it is gone. */
function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * The pids of this process's executor children (their command line names the entry) and of all
 * their descendants: a jailed executor is bubblewrap (2 MB), and the Node process that holds the
 * isolates is bubblewrap's grandchild. Counting the child alone read 2 MB for any number of
 * isolates ("0.0 MB per live isolate").
 */
function executorPids() {
  const children = childrenByParent();
  return withDescendants((children.get(process.pid) ?? []).filter(isExecutorProcess), children);
}

const memory = () => ({
  hostMb: rssMb(process.pid),
  executorMb: executorPids().reduce((sum, pid) => sum + rssMb(pid), 0),
});

function check(host) {
  const visible = host.plan().visible.length;
  const failed = host.plugins.filter((p) => p.status !== 'loaded');
  if (visible !== count * 3 || failed.length > 0) {
    const why = failed
      .slice(0, 3)
      .map((p) => `${p.id}: ${p.status} ${p.diagnostics.join('; ')}`)
      .join(' | ');
    throw new Error(`${count} plugins: ${visible} tools visible, expected ${count * 3}; ${why}`);
  }
}

async function start() {
  const t0 = performance.now();
  const host = await createHost({ root, builtins: false, sandbox: 'process', cache: true, ...options });
  const ms = performance.now() - t0;
  check(host);
  const isolates = (await internalsOf(host).sandbox?.isolateCount()) ?? 0;
  const mem = memory();
  await host.close();
  return { ms, isolates, ...mem };
}

/**
 * Memory with the default isolate settings (idle time and LRU cap) while one call goes into every
 * plugin; then a config file sets a short idle time, a reload applies it, and the phase waits past
 * it for the idle isolates to go.
 */
async function memoryPhase() {
  const host = await createHost({ root, builtins: false, sandbox: 'process', cache: true, ...options });
  check(host);
  const session = host.session();
  const before = memory();
  let first;
  let peak = { hostMb: 0, executorMb: 0 };
  for (let i = 0; i < count; i++) {
    const result = await session.call(`p${i}_echo`, { text: 'x' });
    if (result.isError) throw new Error(`p${i}_echo failed: ${JSON.stringify(result.content)}`);
    // The executor with one isolate: what the others add is counted from here.
    if (i === 0) first = memory();
    if (i % 50 === 49) {
      const now = memory();
      if (now.hostMb + now.executorMb > peak.hostMb + peak.executorMb) peak = now;
    }
  }
  const called = memory();
  const liveAfterCalls = (await internalsOf(host).sandbox?.isolateCount()) ?? 0;
  let idle;
  const idleSeconds = Number(process.env.SCALE_IDLE_SECONDS ?? 0);
  if (idleSeconds > 0) {
    await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify({ isolates: { idleSeconds } }));
    await host.reload();
    // Past the idle time and a sweep (a quarter of it), with a turn for the executor's GC.
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000 * 1.5 + 1000));
    idle = { ...memory(), live: (await internalsOf(host).sandbox?.isolateCount()) ?? 0 };
  }
  await host.close();
  return { before, first, called, peak, liveAfterCalls, idle };
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function save() {
  const edits = Number(process.env.SCALE_EDITS ?? 30);
  const host = await createHost({
    root,
    builtins: false,
    sandbox: 'process',
    cache: true,
    watch: true,
    ...options,
  });
  check(host);
  const http = await serveHttp(host, { auth: { allowUnauthenticated: true }, port: 0 });
  const client = new Client({ name: 'scale-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  let onListChanged;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => onListChanged?.());
  let onChange;
  host.on('change', (change) => onChange?.(change));
  const entry = path.join(root, 'plugins', 'p0', 'index.ts');
  const described = (version) =>
    host
      .plan()
      .visible.find((v) => v.descriptor.name === 'p0_echo')
      ?.descriptor.description.includes(`version ${version};`);

  /** One edit: ms to the change event that shows it, and to the client's list_changed. */
  const edit = async (version) => {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`edit ${version}: not visible in ${EDIT_TIMEOUT_MS} ms`)),
        EDIT_TIMEOUT_MS,
      );
    });
    const changed = new Promise((resolve) => {
      onChange = (change) => {
        if (described(version))
          resolve({ at: performance.now(), durationMs: change.durationMs, swapMs: change.swapMs });
      };
    });
    const listed = new Promise((resolve) => {
      onListChanged = () => {
        if (described(version)) resolve(performance.now());
      };
    });
    const t0 = performance.now();
    await writeFile(entry, pluginSource(0, version));
    try {
      const [change, listedAt] = await Promise.race([Promise.all([changed, listed]), timeout]);
      return {
        change: change.at - t0,
        listChanged: listedAt - t0,
        rebuild: change.durationMs,
        swap: change.swapMs,
      };
    } finally {
      clearTimeout(timer);
    }
  };
  // The watcher may not see a write made right after it reported ready: probe until one is seen.
  for (let probe = 0; ; probe++) {
    try {
      await edit(`probe${probe}`);
      break;
    } catch (error) {
      if (probe >= 10) throw error;
    }
  }
  const changes = [];
  const listChanges = [];
  const rebuilds = [];
  const swaps = [];
  for (let k = 0; k < 3 + edits; k++) {
    const r = await edit(`v${k}`);
    if (k < 3) continue;
    changes.push(r.change);
    listChanges.push(r.listChanged);
    rebuilds.push(r.rebuild);
    swaps.push(r.swap);
  }
  await client.close();
  await http.close();
  await host.close();
  return {
    edits,
    change: { median: quantile(changes, 0.5), p95: quantile(changes, 0.95) },
    listChanged: { median: quantile(listChanges, 0.5), p95: quantile(listChanges, 0.95) },
    rebuild: { median: quantile(rebuilds, 0.5), p95: quantile(rebuilds, 0.95) },
    swap: { median: quantile(swaps, 0.5), p95: quantile(swaps, 0.95) },
  };
}

const phases = { start, memory: memoryPhase, save };
try {
  const result = await phases[phase]();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (error) {
  console.error(`scale ${phase} (${count} plugins): ${error.stack ?? error}`);
  process.exit(1);
}
