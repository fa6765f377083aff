// What polling instead of sleeping (`sandbox.pollMicros`, packages/host/src/util/hot-loop.ts)
// buys and costs on sequential calls, in one run: the plain MCP server over stdio (the
// published server-everything `echo` through the SDK client), the echo plugin in an embedded
// host's process sandbox with polling off (`pollMicros: 0`) and on (the default), and
// `toolhost serve` over stdio (jailed executor) off and on. Each path gets BENCH_WARMUP
// sequential calls, then BENCH_BLOCKS rounds of a 100-call block per path (the order rotating
// each round). Printed: p50, p95 and mean per path with their ratios to the plain server, and
// CPU µs per call of this process (the host, or the client of a served path) and of the path's
// child processes (the executor; serve and its executor), from /proc.
// Run: `npm run build && node --no-node-snapshot bench/polling.mjs` (in `npm run bench`).
// Where the two processes of a call share a CPU (this VM's scheduler packs tasks onto one vCPU
// when they idle a lot, as bench/boundary.mjs's interleaving of eight paths lets them), polling
// cannot pay and stops by itself; this bench's few paths leave them on two CPUs.
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { ECHO_PLUGIN, EVERYTHING_BIN, TOOLHOST_BIN } from './lib/paths.mjs';
import { cpuMicros, withDescendants } from './lib/proc.mjs';
import { setting } from './lib/settings.mjs';

const BLOCKS = setting('BENCH_BLOCKS', 80);
const WARMUP = setting('BENCH_WARMUP', 2_000);
const BLOCK_SIZE = 100;
async function project(pollMicros) {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-polling-'));
  await mkdir(path.join(root, 'plugins'));
  await cp(ECHO_PLUGIN, path.join(root, 'plugins', 'echo'), {
    recursive: true,
  });
  if (pollMicros !== undefined) {
    await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify({ sandbox: { pollMicros } }));
  }
  return root;
}

async function stdioPath(key, label, args, tool, argsOf) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'polling-bench', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  return {
    key,
    label,
    call: (text) => client.callTool({ name: tool, arguments: argsOf(text) }),
    children: () => withDescendants([pid]),
    close: () => client.close(),
  };
}

async function hostPath(key, label, root) {
  const host = await createHost({ root, builtins: false, sandbox: 'process' });
  const session = host.session();
  return {
    key,
    label,
    call: (text) => session.call('echo_text', { text }).then((outcome) => outcome.result),
    children: () => {
      const pid = internalsOf(host).sandbox?.executorPid;
      return pid === undefined ? [] : [pid];
    },
    close: () => host.close(),
  };
}

/** `toolhost serve` over stdio on `root`, called through the SDK client. */
function servePath(key, label, root) {
  const args = ['--no-node-snapshot', TOOLHOST_BIN, 'serve', '--root', root];
  return stdioPath(key, label, args, 'echo_text', (text) => ({ text }));
}

const roots = [await project(0), await project(undefined), await project(0), await project(undefined)];
const paths = [
  await stdioPath('plain', 'MCP SDK server, stdio (baseline)', [EVERYTHING_BIN, 'stdio'], 'echo', (text) => ({
    message: text,
  })),
  await hostPath('embedded-off', 'plugin, process sandbox, polling off', roots[0]),
  await hostPath('embedded-on', 'plugin, process sandbox, polling on (default)', roots[1]),
  await servePath('served-off', 'toolhost serve, stdio, polling off', roots[2]),
  await servePath('served-on', 'toolhost serve, stdio, polling on (default)', roots[3]),
];

try {
  for (const p of paths) {
    for (let i = 0; i < WARMUP; i++) {
      const result = await p.call(`w${i}`);
      if (result.isError) throw new Error(`${p.label}: ${JSON.stringify(result.content)}`);
    }
  }
  const stats = new Map(paths.map((p) => [p.key, { samples: [], hostUs: 0, childUs: 0 }]));
  for (let round = 0; round < BLOCKS; round++) {
    for (let k = 0; k < paths.length; k++) {
      const p = paths[(k + round) % paths.length];
      const s = stats.get(p.key);
      const children = p.children();
      const childBefore = children.reduce((sum, pid) => sum + cpuMicros(pid), 0);
      const hostBefore = process.cpuUsage();
      for (let i = 0; i < BLOCK_SIZE; i++) {
        const text = `s${round}-${i}`;
        const started = performance.now();
        const result = await p.call(text);
        s.samples.push((performance.now() - started) * 1000);
        const echoed = result.content?.[0]?.text;
        if (result.isError || typeof echoed !== 'string' || !echoed.endsWith(text)) {
          throw new Error(`${p.label}: unexpected answer ${JSON.stringify(result)}`);
        }
      }
      const host = process.cpuUsage(hostBefore);
      s.hostUs += host.user + host.system;
      s.childUs += children.reduce((sum, pid) => sum + cpuMicros(pid), 0) - childBefore;
    }
  }
  const calls = BLOCKS * BLOCK_SIZE;
  const row = (p) => {
    const s = stats.get(p.key);
    const sorted = s.samples.sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    return { p50: at(0.5), p95: at(0.95), mean, hostUs: s.hostUs / calls, childUs: s.childUs / calls };
  };
  const rows = new Map(paths.map((p) => [p.key, row(p)]));
  const base = rows.get('plain');
  const f = (n) => n.toFixed(1).padStart(7);
  const x = (n) => `${n.toFixed(2)}×`.padStart(7);
  console.log(
    `polling bench: ${WARMUP.toLocaleString('en-US')} warm-up calls per path, then ${BLOCKS} rounds of ${BLOCK_SIZE}-call blocks per path, interleaved; Node ${process.version}`,
  );
  console.log(
    `${'path'.padEnd(46)}  p50 µs  p95 µs mean µs  p50 ratio mean ratio  CPU µs a call: this process + children`,
  );
  for (const p of paths) {
    const r = rows.get(p.key);
    console.log(
      `${p.label.padEnd(46)} ${f(r.p50)} ${f(r.p95)} ${f(r.mean)}   ${x(r.p50 / base.p50)}    ${x(r.mean / base.mean)}   ${f(r.hostUs)} + ${f(r.childUs)} = ${f(r.hostUs + r.childUs)}`,
    );
  }
  const onOverOff = (what, onKey, offKey) => {
    const on = rows.get(onKey);
    const off = rows.get(offKey);
    const cpu = (on.hostUs + on.childUs) / (off.hostUs + off.childUs);
    console.log(
      `polling on over off, ${what}: p50 ${x(on.p50 / off.p50)}, mean ${x(on.mean / off.mean)}, CPU ${x(cpu)}`,
    );
  };
  onOverOff('process sandbox', 'embedded-on', 'embedded-off');
  onOverOff('serve over stdio', 'served-on', 'served-off');
} finally {
  for (const p of paths) await p.close().catch(() => {});
  for (const root of roots) await rm(root, { recursive: true, force: true });
}
