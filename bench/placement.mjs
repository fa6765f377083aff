// Where the scheduler puts the processes of a call, and what that does to its latency (issue 29's
// p50 goals). A sequential call crosses processes that take turns: the client and the plain
// server; the client, `toolhost serve` and its jailed executor; an embedding host and its executor.
// On this VM an idle CPU halts, and waking it costs more than the work of an echo call, so toolhost
// keeps a process polling while an answer is due (util/hot-loop.ts). That pays only when the
// process it waits for runs on another CPU. Here each path runs with its processes' main threads
// placed with `taskset` (sched_setaffinity) on two CPUs, every way the processes can be split over
// two CPUs ("|": different CPUs, "+": one CPU):
//   plain MCP server     server-everything's echo over stdio, SDK client: client | server,
//                        client + server
//   served stdio         `toolhost serve` (jailed executor, every default on): client + serve |
//                        executor, client | serve + executor, client + executor | serve, all three
//                        on one CPU
//   process plugin       an embedding host (this process) and its jailed executor: host |
//                        executor, host + executor
// Processes left to the scheduler are not measured here (bench/boundary.mjs does): in an earlier
// version of this bench, blocks with the plain server let free took 84-93 µs, as when placed apart,
// against 35-41 µs in boundary.mjs, because processes let free after a placement stay where it put
// them. Each p50 is given as a ratio to the plain server in its fastest placement (client and
// server taking turns on one CPU); apart it takes about 2.5× as long. Needs `taskset` (util-linux);
// without it, on a system other than Linux or with one CPU it says so and measures nothing.
// Run after `npm run build`: `node --no-node-snapshot bench/placement.mjs` (in `npm run bench`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { ECHO_PLUGIN, EVERYTHING_BIN, TOOLHOST_BIN } from './lib/paths.mjs';
import { allowedCpus, descendantsOf } from './lib/proc.mjs';
import { setting } from './lib/settings.mjs';

const WARMUP = setting('BENCH_WARMUP', 2000);
const BLOCKS = setting('BENCH_BLOCKS', 60);
const BLOCK = 100;
/** Untimed calls after each move: the polling windows relearn whether they pay (util/hot-loop.ts). */
const SETTLE = setting('BENCH_SETTLE', 300);

const cpus = allowedCpus();
/** Says why nothing is measured, and ends: the rest of `npm run bench` goes on. */
function notMeasured(why) {
  console.log(`placement: not measured here (${why})`);
  process.exit(0);
}
if (cpus.length < 2) {
  notMeasured(`needs Linux and two CPUs or more; ${process.platform}, CPUs ${cpus.join(',') || 'unknown'}`);
}
try {
  execFileSync('taskset', ['-V'], { stdio: 'ignore' });
} catch (error) {
  notMeasured(`needs taskset (util-linux): ${error.message}`);
}
/** The two CPUs the placements use. */
const [A, B] = cpus.map(String);

/** The CPU list each process was last placed on: a placement that keeps it runs no `taskset`. */
const placed = new Map();

/** Sets the CPUs a process's main thread may run on (its other threads keep theirs). */
function place(pid, cpuList) {
  if (placed.get(pid) === cpuList) return;
  try {
    execFileSync('taskset', ['-p', '-c', cpuList, String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(
      `placement: taskset could not place ${pid} on CPU ${cpuList}: ${error.stderr || error.message}`,
    );
  }
  placed.set(pid, cpuList);
}

/** The executor process under `pid`: the Node process running executor-main (not bubblewrap). */
function executorUnder(pid) {
  for (const each of descendantsOf(pid)) {
    let argv;
    try {
      argv = readFileSync(`/proc/${each}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (path.basename(argv[0]) !== 'bwrap' && argv.some((arg) => arg.endsWith('executor-main.js'))) {
      return each;
    }
  }
  throw new Error(`placement: no executor process under ${pid}`);
}

/** An SDK client over stdio of `node <args>`. */
async function stdioClient(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' });
  const client = new Client({ name: 'placement-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** A call that fails loudly when its answer is not the echo expected. */
function checked(label, call, expected) {
  return async (text) => {
    const result = await call(text);
    const first = result?.content?.[0];
    if (result?.isError === true || first?.text !== expected(text)) {
      throw new Error(`${label}: "${text}" answered ${JSON.stringify(result).slice(0, 300)}`);
    }
  };
}

/** A copy of `items` in a random order (Fisher-Yates). */
function shuffled(items) {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'toolhost-placement-bench-'));
const closers = [];
try {
  await mkdir(path.join(root, 'plugins'));
  await cp(ECHO_PLUGIN, path.join(root, 'plugins', 'echo'), { recursive: true });
  await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify({ builtins: false }));

  const plain = await stdioClient([EVERYTHING_BIN, 'stdio']);
  closers.push(() => plain.client.close());
  const plainCall = checked(
    'plain server',
    (text) => plain.client.callTool({ name: 'echo', arguments: { message: text } }),
    (text) => `Echo: ${text}`,
  );

  const served = await stdioClient([TOOLHOST_BIN, 'serve', '--root', root]);
  closers.push(() => served.client.close());
  const servedCall = checked(
    'served stdio',
    (text) => served.client.callTool({ name: 'echo_text', arguments: { text } }),
    (text) => `echo: ${text}`,
  );
  await servedCall('first'); // starts the executor
  const servedExecutor = executorUnder(served.pid);

  const host = await createHost({ root, builtins: false, sandbox: 'process', cache: false });
  closers.push(() => host.close());
  const session = host.session();
  const embeddedCall = checked(
    'process plugin',
    async (text) => (await session.call('echo_text', { text })).result,
    (text) => `echo: ${text}`,
  );
  await embeddedCall('first');
  const embeddedExecutor = internalsOf(host).sandbox?.executorPid;
  if (embeddedExecutor === undefined) throw new Error('placement: the embedded host has no executor');

  const me = process.pid;
  const variants = [
    {
      path: 'plain MCP server',
      label: 'client | server',
      call: plainCall,
      pins: [
        [me, A],
        [plain.pid, B],
      ],
    },
    {
      path: 'plain MCP server',
      label: 'client + server',
      call: plainCall,
      pins: [
        [me, A],
        [plain.pid, A],
      ],
    },
    {
      path: 'served stdio',
      label: 'client + serve | executor',
      call: servedCall,
      pins: [
        [me, A],
        [served.pid, A],
        [servedExecutor, B],
      ],
      goal: 1.5,
    },
    {
      path: 'served stdio',
      label: 'client | serve + executor',
      call: servedCall,
      pins: [
        [me, A],
        [served.pid, B],
        [servedExecutor, B],
      ],
      goal: 1.5,
    },
    {
      path: 'served stdio',
      label: 'client + executor | serve',
      call: servedCall,
      pins: [
        [me, A],
        [served.pid, B],
        [servedExecutor, A],
      ],
      goal: 1.5,
    },
    {
      path: 'served stdio',
      label: 'client + serve + executor',
      call: servedCall,
      pins: [
        [me, A],
        [served.pid, A],
        [servedExecutor, A],
      ],
      goal: 1.5,
    },
    {
      path: 'process plugin',
      label: 'host | executor',
      call: embeddedCall,
      pins: [
        [me, A],
        [embeddedExecutor, B],
      ],
      goal: 1,
    },
    {
      path: 'process plugin',
      label: 'host + executor',
      call: embeddedCall,
      pins: [
        [me, A],
        [embeddedExecutor, A],
      ],
      goal: 1,
    },
  ].map((variant) => ({ ...variant, samples: [] }));

  // Warm-up in each placement, so that each starts from its own state of polling (util/hot-loop.ts
  // learns whether polling pays), then rounds of one block per placement in a new order each round:
  // whatever a block leaves behind (which CPU is awake, the polling windows) is then left to a
  // different placement each time, not always to the same one.
  const warmupEach = WARMUP;
  for (const variant of variants) {
    for (const [pid, list] of variant.pins) place(pid, list);
    for (let i = 0; i < warmupEach; i++) await variant.call(`w${i}`);
  }
  for (let round = 0; round < BLOCKS; round++) {
    for (const variant of shuffled(variants)) {
      for (const [pid, list] of variant.pins) place(pid, list);
      for (let i = 0; i < SETTLE; i++) await variant.call(`m${i}`);
      for (let i = 0; i < BLOCK; i++) {
        const started = performance.now();
        await variant.call(`s${i}`);
        variant.samples.push((performance.now() - started) * 1000);
      }
    }
  }

  const p50 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const variant of variants) variant.p50 = p50(variant.samples);
  const plainBest = Math.min(
    ...variants.filter((variant) => variant.path === variants[0].path).map((variant) => variant.p50),
  );
  console.log(
    `placement: ${BLOCKS * BLOCK} sequential calls per placement (${SETTLE} untimed after each move) after ${warmupEach} warm-up calls in each, in blocks of ${BLOCK}, one per placement a round in a shuffled order; main threads placed with taskset on CPUs ${A} and ${B} ("|": different CPUs, "+": one CPU); ratio to the plain server in its fastest placement`,
  );
  console.log(
    `${'path'.padEnd(18)}${'placement'.padEnd(28)}${'p50 µs'.padStart(8)}${'ratio'.padStart(9)}   goal`,
  );
  for (const variant of variants) {
    const ratio = variant.p50 / plainBest;
    const goal = variant.goal === undefined ? '' : `≤ ${variant.goal}× ${ratio <= variant.goal ? '✓' : '✗'}`;
    console.log(
      `${variant.path.padEnd(18)}${variant.label.padEnd(28)}${variant.p50.toFixed(1).padStart(8)}${`${ratio.toFixed(2)}×`.padStart(9)}   ${goal}`,
    );
  }
} finally {
  for (const close of closers.reverse()) await close().catch(() => {});
  await rm(root, { recursive: true, force: true });
}
