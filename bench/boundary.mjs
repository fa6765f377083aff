// The boundary benchmark: what a call costs on each path a tool can take, as ratios to the
// alternative a user would pick, a plain MCP server over stdio (the published
// @modelcontextprotocol/server-everything `echo`, called through the official SDK client).
//
// Paths, all running the same small echo: the MCP baseline; the same server behind a Node process
// that only copies bytes (the served chain's floor, measured in the same rotation; no goal); an
// in-process custom tool through the
// full wrapper (`host.session().call`); the echo plugin in an `inline` and in a `process` sandbox;
// and `toolhost serve` over stdio called through the SDK client, in both shapes: isolates in the
// jailed executor process (the default) and in the supervised serve process (`--sandbox inline`);
// and over streamable HTTP, the same published server against `toolhost serve --http` with every
// default on (the project token checked, the audit trail written, the jailed executor), each HTTP
// path's ratios taken to the HTTP baseline, its clients pooling 256 connections. Method: every
// path gets BENCH_WARMUP sequential warm-up calls, then BENCH_BLOCKS rounds in which each path runs
// a block of 100 sequential calls (the order rotates each round), for p50/p95; then BENCH_ROUNDS
// interleaved bursts per path at 64 and at 5,000 calls in flight, for calls/s (the median) and
// their spread (the fastest burst over the slowest: stable under load); then BENCH_IDLE_CALLS
// single calls per path, each after BENCH_IDLE_MS of idleness (a model's turn between two tool
// calls), for their p50 (the first call after a pause only: see below). CPU per call: this
// process from `process.cpuUsage()`, child processes (executor, MCP server, `serve` and its
// executor) from utime+stime in /proc/<pid>/stat. Every result is checked; any failure exits 1.
//
// Each burst at 5,000 in flight starts from a collected heap (`gc()`, so this runs with
// --expose-gc): this process hosts every embedded path and every MCP path's client, and without it
// a full collection of what the bursts before left (5,000 HTTP calls in flight leave the most)
// landed in whichever burst came next, its marking on the main thread: that burst ran at
// 0.26-0.37× its path's median, the main thread's CPU a call 3-4× the other bursts' (four of twenty
// process-sandbox bursts in four runs; none in five runs with it). A host gets idle time between
// bursts to collect in; the bench has none. The collections of a burst's own calls still land in
// it. Not at 64 in flight: there a forced collection before each burst cost the short bursts much
// of their speed (in-process 0.41-0.49×, process plugin 0.63-0.71× of their calls/s without it;
// three runs each way), for a reason not found yet (an untimed quarter-size burst between the
// collection and the timed one did not bring it back). The table of slow bursts says, for any
// burst under 0.67× its path's median, what it spent its time on.
//
// Blocks and bursts interleave within a transport: the stdio and embedded paths with the plain
// stdio server, then the HTTP paths with the plain HTTP server, each path's ratio taken in its own
// rotation (a path says its transport; its baseline is that transport's plain server). In one
// rotation of all of them (BENCH_INTERLEAVE=all, the design until 2026-12-07), each stdio path sat
// idle ≈ 250 ms between two of its blocks while the HTTP blocks ran (2 ms a call against
// 0.05-0.2), and its next block ran in part as after idleness: in scratch rotations of 80-100
// rounds, the process plugin's block p50 was 104-113 µs with the HTTP baseline in the rotation
// against 52-54 without it, and 124 µs with a path that only sleeps 220 ms a block in its place;
// the plain server's 91-110 against 73-88. Idleness costs the toolhost paths more than the plain
// server (they cross more processes), so the old rotation's figures depended on how slow the HTTP
// paths were. The gaps are shorter now, not gone: a stdio path still idles while the other paths
// of its rotation run (≈ 40-50 ms), and the HTTP paths idle through the stdio phases (the stdio
// executors, idle 100-130 s through the HTTP phases, must not reach their 300 s retirement). The
// idle regime has its own table: the first call after a pause.
//
// Run: `npm run bench` (all benches), or `npm run build && node bench/boundary.mjs`.
// Environment: BENCH_BLOCKS (default 300), BENCH_WARMUP (2000), BENCH_ROUNDS (5),
// BENCH_BURST_CALLS (calls per burst at every concurrency; default 5,000 at 64 in flight and
// 20,000 at 5,000: only a smoke run such as test/bench/goals.test.ts sets it),
// BENCH_IDLE_CALLS (40), BENCH_IDLE_MS (100), BENCH_INTERLEAVE=all|per-transport (default
// per-transport; all: one rotation of every path, as before, to see the difference the header
// describes),
// BENCH_JSON=<file> (write the results there, for bench/boundary-compare.mjs), BENCH_STRICT=1
// (exit 1 when a goal is missed), BENCH_TIMEOUT_S (900: a run that takes longer fails; a quiet
// 2-core machine takes about 450 s, most of it the HTTP paths).
// This machine is noisy: compare the ratios, not the absolute numbers.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { Agent } from 'undici';
import * as z from 'zod';
import { SLOW_BURST, slowBursts } from './lib/bursts.mjs';
import { BYTE_RELAY, ECHO_PLUGIN, EVERYTHING_BIN, REPO, TOOLHOST_BIN } from './lib/paths.mjs';

import { childrenOf, descendantsOf, HAS_PROC, isExecutorProcess, procStat } from './lib/proc.mjs';
import { setting } from './lib/settings.mjs';

// isolated-vm needs --no-node-snapshot on Node >= 20 (the inline path runs isolates here);
// --expose-gc: each burst at 5,000 in flight starts from a collected heap (above).
const NEEDED_FLAGS = ['--no-node-snapshot', '--expose-gc'].filter((flag) => !process.execArgv.includes(flag));
if (NEEDED_FLAGS.length > 0) {
  const child = spawnSync(
    process.execPath,
    [...NEEDED_FLAGS, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(child.status ?? 1);
}

// ---- settings ----

const BLOCKS = setting('BENCH_BLOCKS', 300);
const WARMUP = setting('BENCH_WARMUP', 2_000);
const ROUNDS = setting('BENCH_ROUNDS', 5);
const TIMEOUT_S = setting('BENCH_TIMEOUT_S', 900);
const BLOCK_SIZE = 100;
const IDLE_CALLS = setting('BENCH_IDLE_CALLS', 40);
const IDLE_MS = setting('BENCH_IDLE_MS', 100);
const INTERLEAVE = (() => {
  const value = process.env.BENCH_INTERLEAVE;
  if (value === undefined || value === '' || value === 'per-transport') return 'per transport';
  if (value === 'all') return 'all';
  throw new Error(`BENCH_INTERLEAVE=${value}: expected "all" or "per-transport"`);
})();
const STRICT = process.env.BENCH_STRICT === '1';
const JSON_FILE = process.env.BENCH_JSON || undefined;
/**
 * In flight → calls per burst (enough that the ramp-up and the drain do not dominate), and whether
 * each burst at that concurrency starts from a collected heap (`collect`, header).
 */
const CONCURRENCY = [
  { inFlight: 64, calls: setting('BENCH_BURST_CALLS', 5_000), collect: false },
  { inFlight: 5_000, calls: setting('BENCH_BURST_CALLS', 20_000), collect: true },
];

// ---- failing loudly, cleaning up always ----

let phase = 'start';
/** Seconds each phase took, for the report (and for choosing BENCH_BLOCKS). */
const phaseSeconds = {};
let phaseStarted = performance.now();
function enter(next) {
  const now = performance.now();
  phaseSeconds[phase] = (now - phaseStarted) / 1000;
  phase = next;
  phaseStarted = now;
}
let tempRoot;

/** Every process this run started, directly or through a host, killed: only when it must stop. */
function killDescendants() {
  for (const pid of descendantsOf(process.pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Last resort (watchdog, stray rejection): kill what we started, remove the temp folder, exit 1. */
function abandon(reason) {
  console.error(`bench: FAILED (${phase}): ${reason}`);
  killDescendants();
  if (tempRoot !== undefined) rmSync(tempRoot, { recursive: true, force: true });
  process.exit(1);
}
const watchdog = setTimeout(
  () => abandon(`the run took longer than BENCH_TIMEOUT_S=${TIMEOUT_S} s`),
  TIMEOUT_S * 1000,
);
watchdog.unref();
process.on('unhandledRejection', (error) => abandon(`unhandled rejection: ${error?.stack ?? error}`));

// ---- CPU of other processes, from /proc ----

/** Summed CPU µs of `pids`; throws when one has gone (a restarted child would make the delta wrong). */
function cpuOf(pids, label) {
  let total = 0;
  for (const pid of pids) {
    const stat = procStat(pid);
    if (stat === undefined || stat.state === 'Z') throw new Error(`${label}: process ${pid} is gone`);
    total += stat.cpuUs;
  }
  return total;
}

function isAlive(pid) {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

// ---- the paths ----

function preview(value) {
  const text = JSON.stringify(value);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** A checker of `{content:[{type:'text', text}]}` results: not isError, and the echoed text. */
function textCheck(label, prefix, resultOf) {
  return (answer, text) => {
    const result = resultOf(answer);
    const first = result?.content?.[0];
    if (result?.isError === true || first?.type !== 'text' || first.text !== prefix + text) {
      throw new Error(`${label}: call with text "${text}" answered ${preview(answer)}`);
    }
  };
}

/** Whether a process is esbuild's service (the plugin builds of a `serve`). */
function isEsbuild(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('esbuild');
  } catch {
    return false;
  }
}

/** Waits (≤ 5 s) for a process to end; a child that outlives its close is a failure. */
async function gone(pid, label) {
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (isAlive(pid)) throw new Error(`${label}: process ${pid} still runs after close`);
}

/** Runs `use` and, when it throws, `close` before rethrowing: a half-made path leaves nothing behind. */
async function closingOnError(close, use) {
  try {
    return await use();
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/**
 * An SDK client over stdio to `args` run by this Node, with the SDK's default environment (what an
 * MCP client passes); its child's stderr is kept for error messages. `close` also waits for the
 * child and every process it started to end.
 */
async function stdioClient(label, args) {
  let stderr = '';
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  const client = new Client({ name: 'toolhost-bench', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(`${label}: could not connect (${error.message}); its stderr:\n${stderr}`);
  }
  const pid = transport.pid;
  // The SDK's send adds a 'drain' listener per message written while the pipe is full: thousands
  // at 5,000 in flight, by design, and Node would warn of a leak each time. (A private field: when
  // it is renamed the warnings come back, nothing else changes.)
  transport._process?.stdin?.setMaxListeners(0);
  return {
    client,
    pid,
    stderr: () => stderr,
    close: async () => {
      const family = pid === null ? [] : [pid, ...descendantsOf(pid)];
      await client.close();
      for (const each of family) await gone(each, label);
    },
  };
}

/**
 * The published server-everything over stdio: the baseline of the stdio paths, or (`relayed`) the
 * same server with one more Node process in front that only copies bytes (lib/byte-relay.mjs):
 * the shape of the served chain (client, serve, executor) with nothing done in the middle.
 * Measured in the stdio rotation, that is the floor of the served stdio figures in the same
 * conditions: bench/floor.mjs measures it too, but in a rotation of its own, where the plain
 * server ran 2.4× faster at 64 in flight than here (42.8k against 17-18k calls/s).
 */
async function mcpBaseline({ relayed = false } = {}) {
  const label = `MCP server-everything echo${relayed ? ' behind a byte relay' : ''}`;
  const args = [EVERYTHING_BIN, 'stdio'];
  const server = await stdioClient(label, relayed ? [BYTE_RELAY, ...args] : args);
  return closingOnError(server.close, async () => {
    const { tools } = await server.client.listTools();
    if (!tools.some((tool) => tool.name === 'echo')) throw new Error(`${label}: no "echo" tool listed`);
    let pids;
    return {
      key: relayed ? 'relay' : 'mcp',
      label: relayed ? 'MCP SDK server behind a byte relay (floor)' : 'MCP SDK server, stdio (baseline)',
      childLabel: relayed ? 'relay+server' : 'server',
      call: (text) => server.client.callTool({ name: 'echo', arguments: { message: text } }),
      check: textCheck(label, 'Echo: ', (result) => result),
      // The relay and the server behind it, looked up once both run.
      childPids: () => {
        if (server.pid === null) return [];
        pids ??= [server.pid, ...descendantsOf(server.pid)];
        return pids;
      },
      close: server.close,
    };
  });
}

/** A port free on loopback now (the server told to take it binds it a moment later). */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A child process serving MCP over streamable HTTP, run by this Node, and an SDK client of it:
 * ready once its output matches `ready` (whose first group is the URL); `headers` (a function of
 * the root, read once it listens) go with every request; `urlOf` makes the URL of what matched. `close` ends the client, then the child
 * and every process it started.
 */
async function httpClient(label, args, { env = {}, ready, urlOf = (found) => found, headers = () => ({}) }) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
      const match = ready.exec(output);
      if (match !== null) resolve(urlOf(match[1]));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`${label}: exited (${code}) before it listened:\n${output}`)),
    );
  });
  const pid = child.pid;
  const client = new Client({ name: 'toolhost-bench', version: '1.0.0' });
  // A pool of 256 connections, as a client would keep; more calls wait in it. Opening one per call
  // in flight (5,000) overflows a server's accept queue (Node listens with a backlog of 511) and
  // the connections it drops fail mid-request, for every server alike. The keep-alive ends well
  // before a server's (Node's default is 5 s), so no call takes a socket the server is closing.
  const agent = new Agent({ connections: 256, keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });
  const close = async () => {
    const family = [pid, ...descendantsOf(pid)];
    await client.close().catch(() => {});
    await agent.close();
    child.kill('SIGTERM');
    for (const each of family) await gone(each, label);
  };
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: headers(), dispatcher: agent },
      }),
    );
  } catch (error) {
    await close();
    throw new Error(`${label}: could not connect (${error.message}); its output:\n${output}`);
  }
  return { client, pid, output: () => output, close };
}

/** The published server-everything over streamable HTTP: the baseline of the HTTP paths. */
async function mcpHttpBaseline() {
  const label = 'MCP server-everything echo (HTTP)';
  const port = await freePort();
  const server = await httpClient(label, [EVERYTHING_BIN, 'streamableHttp'], {
    env: { PORT: String(port) },
    ready: /listening on port (\d+)/,
    urlOf: (found) => `http://127.0.0.1:${found}/mcp`,
  });
  return closingOnError(server.close, async () => {
    const { tools } = await server.client.listTools();
    if (!tools.some((tool) => tool.name === 'echo')) throw new Error(`${label}: no "echo" tool listed`);
    return {
      key: 'mcp-http',
      transport: 'http',
      label: 'MCP SDK server, streamable HTTP (baseline)',
      childLabel: 'server',
      call: (text) => server.client.callTool({ name: 'echo', arguments: { message: text } }),
      check: textCheck(label, 'Echo: ', (result) => result),
      childPids: () => [server.pid],
      close: server.close,
    };
  });
}

/**
 * `toolhost serve --http` with every default on: the project's bearer token checked on each
 * request, the audit trail written, isolates in the jailed executor.
 */
async function serveHttpPath(root) {
  const label = 'toolhost serve (HTTP)';
  const server = await httpClient(
    label,
    ['--no-node-snapshot', TOOLHOST_BIN, 'serve', '--http', String(await freePort()), '--root', root],
    {
      ready: /streamable HTTP at (http:\S+)/,
      headers: () => {
        const file = path.join(root, '.toolhost', 'serve-tokens.json');
        return { authorization: `Bearer ${JSON.parse(readFileSync(file, 'utf8')).tokens.default}` };
      },
    },
  );
  return closingOnError(server.close, async () => {
    const { tools } = await server.client.listTools();
    if (!tools.some((tool) => tool.name === 'echo_text')) {
      throw new Error(`${label}: "echo_text" is not listed (${preview(tools)}); output:\n${server.output()}`);
    }
    let pids;
    return {
      key: 'serve-http',
      transport: 'http',
      label: 'toolhost serve, HTTP, jailed executor, token + audit',
      childLabel: 'serve+executor',
      goal: { p50: 1.5 },
      call: (text) => server.client.callTool({ name: 'echo_text', arguments: { text } }),
      check: textCheck(label, 'echo: ', (result) => result),
      childPids: () => {
        pids ??= [server.pid, ...descendantsOf(server.pid).filter((pid) => !isEsbuild(pid))];
        return pids;
      },
      close: server.close,
    };
  });
}

/** `toolhost serve` over stdio: isolates in the jailed executor process (the default), or in the supervised serve process (`--sandbox inline`). */
async function servePath(root, sandbox) {
  const label = `toolhost serve (stdio, ${sandbox})`;
  const server = await stdioClient(label, [TOOLHOST_BIN, 'serve', '--root', root, '--sandbox', sandbox]);
  return closingOnError(server.close, async () => {
    const { tools } = await server.client.listTools();
    if (!tools.some((tool) => tool.name === 'echo_text')) {
      throw new Error(`${label}: "echo_text" is not listed (${preview(tools)}); stderr:\n${server.stderr()}`);
    }
    let pids;
    return {
      key: sandbox === 'inline' ? 'serve' : 'serve-process',
      label:
        sandbox === 'inline'
          ? 'toolhost serve, stdio, inline isolates'
          : 'toolhost serve, stdio, jailed executor (default)',
      childLabel: sandbox === 'inline' ? 'supervisor+serve' : 'serve+executor',
      // The goal is for the default shape; the other is shown beside it.
      goal: sandbox === 'inline' ? undefined : { p50: 1.5 },
      call: (text) => server.client.callTool({ name: 'echo_text', arguments: { text } }),
      check: textCheck(label, 'echo: ', (result) => result),
      // The supervisor and `serve`, or `serve` and its executor, looked up once the warm-up has
      // started the executor.
      childPids: () => {
        if (server.pid === null) return [];
        // Not esbuild's service: it does nothing during calls, and ends when the build worker idles.
        pids ??= [server.pid, ...descendantsOf(server.pid).filter((pid) => !isEsbuild(pid))];
        return pids;
      },
      close: server.close,
    };
  });
}

async function hostPath({ key, label, goal, childLabel, options, tool }) {
  const host = await createHost({ builtins: false, ...options });
  const executors = () =>
    options.sandbox === 'process'
      ? // Through the host's sandbox plumbing when it says, else by command line.
        // (the jailed executor itself, not the bubblewrap around it).
        [internalsOf(host).sandbox?.executorPid ?? childrenOf(process.pid).find(isExecutorProcess)].filter(
          (pid) => pid !== undefined,
        )
      : [];
  const close = async () => {
    const running = executors();
    await host.close();
    for (const pid of running) await gone(pid, `${label} executor`);
  };
  return closingOnError(close, async () => {
    if (!host.plan().visible.some((entry) => entry.descriptor.name === tool)) {
      throw new Error(`${label}: "${tool}" is not visible: ${preview(host.plan().hidden)}`);
    }
    const session = host.session();
    let pids;
    return {
      key,
      label,
      goal,
      childLabel,
      call: (text) => session.call(tool, { text }),
      check: textCheck(label, 'echo: ', (outcome) => outcome.result),
      childPids: () => {
        pids ??= executors();
        return pids;
      },
      // The polling turns its process sandbox took while waiting for the executor (util/hot-loop.ts).
      ...(options.sandbox === 'process'
        ? { pollTurns: () => internalsOf(host).sandbox?.pollTurns ?? 0 }
        : {}),
      close,
    };
  });
}

const inProcessEcho = defineTool({
  name: 'inproc_echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

// ---- measuring ----

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function rotated(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

async function warmUp(p) {
  for (let i = 0; i < WARMUP; i++) {
    const text = `w${i}`;
    p.check(await p.call(text), text);
  }
}

/** The baseline of each transport: the plain MCP server over it. */
const BASELINES = { stdio: 'mcp', http: 'mcp-http' };

/** The key of the path a path's ratios are taken to (a baseline's is itself). */
const baselineOf = (p) => BASELINES[p.transport ?? 'stdio'];

/**
 * Runs `phase` on each transport's paths in turn (its baseline with the paths measured against
 * it: header), and merges the results into one map by path.
 */
async function perTransport(paths, phase) {
  const merged = new Map();
  for (const group of rotationsOf(paths)) {
    for (const [key, value] of await phase(group)) merged.set(key, value);
  }
  return merged;
}

/** The paths that rotate together in the latency and throughput phases, in the order they run. */
function rotationsOf(paths) {
  return INTERLEAVE === 'all' ? [paths] : [...Map.groupBy(paths, baselineOf).values()];
}

/**
 * The first call after a pause: single calls, each after IDLE_MS in which this process made none
 * (a path's own previous call came one rotation, ≈ paths × IDLE_MS, before), the paths in turn:
 * their p50 and p95 (µs).
 */
async function idlePhase(paths) {
  const samples = new Map(paths.map((p) => [p.key, []]));
  let n = 0;
  for (let round = 0; round < IDLE_CALLS; round++) {
    for (const p of rotated(paths, round)) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const text = `i${n++}`;
      const started = performance.now();
      const answer = await p.call(text);
      samples.get(p.key).push((performance.now() - started) * 1000);
      p.check(answer, text);
    }
  }
  const result = new Map();
  for (const p of paths) {
    const sorted = samples.get(p.key).sort((a, b) => a - b);
    result.set(p.key, { calls: sorted.length, p50Us: quantile(sorted, 0.5), p95Us: quantile(sorted, 0.95) });
  }
  return result;
}

/** Interleaved blocks of sequential calls: latency samples (µs), and CPU per path. */
async function latencyPhase(paths) {
  const stats = new Map(
    paths.map((p) => [p.key, { samples: new Float64Array(BLOCKS * BLOCK_SIZE), hostUs: 0, childUs: 0 }]),
  );
  // Children idle outside their own path's blocks: one reading around the phase is theirs alone.
  const childBefore = new Map(paths.map((p) => [p.key, cpuOf(p.childPids(), p.label)]));
  let n = 0;
  for (let round = 0; round < BLOCKS; round++) {
    for (const p of rotated(paths, round)) {
      const s = stats.get(p.key);
      const offset = round * BLOCK_SIZE;
      const cpu = process.cpuUsage();
      for (let i = 0; i < BLOCK_SIZE; i++) {
        const text = `s${n++}`;
        const started = performance.now();
        const answer = await p.call(text);
        s.samples[offset + i] = (performance.now() - started) * 1000;
        p.check(answer, text);
      }
      const used = process.cpuUsage(cpu);
      s.hostUs += used.user + used.system;
    }
  }
  const calls = BLOCKS * BLOCK_SIZE;
  const result = new Map();
  for (const p of paths) {
    const s = stats.get(p.key);
    const sorted = s.samples.sort();
    result.set(p.key, {
      calls,
      p50Us: quantile(sorted, 0.5),
      p95Us: quantile(sorted, 0.95),
      cpu: {
        hostUs: s.hostUs / calls,
        childUs: (cpuOf(p.childPids(), p.label) - childBefore.get(p.key)) / calls,
      },
    });
  }
  return result;
}

// ---- this process's garbage collections, to say what a slow burst spent its time on ----

/** Collections of this process (the embedded hosts and every MCP path's client) not yet read. */
let collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry);
}).observe({ entryTypes: ['gc'] });

/** CPU µs of this process's main thread (the event loop; not V8's GC helpers or libuv's pool). */
function mainThreadUs() {
  return procStat(`${process.pid}/task/${process.pid}`)?.cpuUs ?? 0;
}

/**
 * The pause time of this process's collections that started in [from, to) (`performance.now()`
 * ms), and how many of them were full (mark-compact) ones. Entries arrive a turn after their
 * collection: the caller waits one timer turn first. Entries before `to` are dropped after.
 */
function collectionsWithin(from, to) {
  let pauseMs = 0;
  let full = 0;
  for (const entry of collections) {
    if (entry.startTime < from || entry.startTime >= to) continue;
    pauseMs += entry.duration;
    if (entry.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) full += 1;
  }
  collections = collections.filter((entry) => entry.startTime >= to);
  return { pauseMs, full };
}

/** `calls` calls of one path with `inFlight` of them in flight at every moment (until the drain). */
async function burst(p, inFlight, calls) {
  let next = 0;
  let failed = false;
  const worker = async () => {
    try {
      while (next < calls && !failed) {
        const text = `c${next++}`;
        p.check(await p.call(text), text);
      }
    } catch (error) {
      failed = true; // the other workers stop too: the run is over
      const cause =
        error?.cause === undefined
          ? ''
          : ` (cause: ${error.cause?.code ?? error.cause?.message ?? error.cause})`;
      throw new Error(`${p.label} at ${inFlight} in flight: ${error?.message ?? error}${cause}`);
    }
  };
  const pids = p.childPids();
  const childBefore = cpuOf(pids, p.label);
  const cpu = process.cpuUsage();
  const mainBefore = mainThreadUs();
  const turnsBefore = p.pollTurns?.();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  const mainUs = mainThreadUs() - mainBefore;
  const pollTurns = turnsBefore === undefined ? undefined : (p.pollTurns?.() ?? 0) - turnsBefore;
  const used = process.cpuUsage(cpu);
  const childUs = cpuOf(pids, p.label) - childBefore;
  await new Promise((resolve) => setTimeout(resolve, 0)); // the collections' entries come a turn later
  return {
    perSecond: calls / seconds,
    hostUs: used.user + used.system,
    childUs,
    mainUs,
    pollTurns,
    gc: collectionsWithin(started, ended),
  };
}

async function throughputPhase(paths, { inFlight, calls, collect }) {
  const runs = new Map(paths.map((p) => [p.key, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of rotated(paths, round)) {
      if (collect) globalThis.gc(); // what the bursts before left is not this one's to collect (header)
      runs.get(p.key).push(await burst(p, inFlight, calls));
    }
  }
  const result = new Map();
  for (const p of paths) {
    const list = runs.get(p.key);
    const rates = list.map((r) => r.perSecond).sort((a, b) => a - b);
    const total = list.length * calls;
    result.set(p.key, {
      inFlight,
      calls: total,
      perSecond: quantile(rates, 0.5),
      runs: list.map((r) => r.perSecond),
      // Per burst, in order: this process's CPU and its children's, µs a call; its GC pauses.
      bursts: list.map((r) => ({
        perSecond: r.perSecond,
        hostUs: r.hostUs / calls,
        mainUs: r.mainUs / calls,
        pollTurns: r.pollTurns === undefined ? undefined : r.pollTurns / calls,
        childUs: r.childUs / calls,
        gcPauseMs: r.gc.pauseMs,
        fullGcs: r.gc.full,
      })),
      cpu: {
        hostUs: list.reduce((sum, r) => sum + r.hostUs, 0) / total,
        childUs: list.reduce((sum, r) => sum + r.childUs, 0) / total,
      },
    });
  }
  return result;
}

// ---- report ----

const us = (value) => value.toFixed(1);
const times = (value) => `${value.toFixed(2)}×`;
const count = (value) => Math.round(value).toLocaleString('en-US');

function verdict(value, goal, atMost) {
  if (goal === undefined) return '';
  const met = atMost ? value <= goal : value >= goal;
  return `${atMost ? '≤' : '≥'} ${goal}× ${met ? '✓' : '✗'}`;
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])));
  console.log(line(header).join('  ').trimEnd());
  for (const row of rows) console.log(line(row).join('  ').trimEnd());
}

/**
 * Throughput goals: ratio of calls/s to the path's baseline at the same concurrency (issue 29:
 * served paths at least as fast as a plain MCP server, the process sandbox 1.25× it).
 */
const THROUGHPUT_GOALS = {
  64: { process: 1.25, 'serve-process': 1, 'serve-http': 1 },
  5000: { process: 1.25, inproc: 2, 'serve-process': 1, 'serve-http': 1 },
};

/**
 * Throughput under load, stable (issue 29: the process path's calls/s at 5,000 in flight once
 * varied 3× from one burst to the next): the fastest of its bursts over the slowest, at most this.
 * The issue names no number; 1.5× is this bench's, well inside the noise a 2-core machine shows.
 */
const SPREAD_GOALS = { 5000: { process: 1.5 } };

/** The fastest of a path's bursts over its slowest. */
const spreadOf = (runs) => Math.max(...runs) / Math.min(...runs);
/**
 * The columns of the slow-burst table after path, concurrency and speed: each a heading and how a
 * slow burst's figure is shown beside the mean of its path's other bursts (`typical`).
 */
const SLOW_COLUMNS = [
  ['host µs', (b, t) => `${us(b.hostUs)} / ${us(t.hostUs)}`],
  ['main thread µs', (b, t) => `${us(b.mainUs)} / ${us(t.mainUs)}`],
  [
    'poll turns',
    (b, t) => (b.pollTurns === undefined ? '-' : `${b.pollTurns.toFixed(2)} / ${t.pollTurns.toFixed(2)}`),
  ],
  ['child µs', (b, t, e) => (e.childProcesses === null ? '-' : `${us(b.childUs)} / ${us(t.childUs)}`)],
  ['GC ms', (b, t) => `${Math.round(b.gcPauseMs)} / ${Math.round(t.gcPauseMs)}`],
  ['full GCs', (b, t) => `${b.fullGcs} / ${t.fullGcs.toFixed(1)}`],
];

function summarize(paths, latency, throughput, idle) {
  const summary = {};
  for (const p of paths) {
    const l = latency.get(p.key);
    const baseline = baselineOf(p);
    const i = idle.get(p.key);
    const ratio = l.p50Us / latency.get(baseline).p50Us;
    const entry = {
      label: p.label,
      baseline,
      childProcesses: p.childLabel ?? null,
      latency: {
        calls: l.calls,
        p50Us: l.p50Us,
        p95Us: l.p95Us,
        p50Ratio: ratio,
        goal: p.goal?.p50 ?? null,
        met: p.goal === undefined ? null : ratio <= p.goal.p50,
      },
      cpuSequential: l.cpu,
      throughput: {},
      idle: { ...i, p50Ratio: i.p50Us / idle.get(baseline).p50Us },
    };
    for (const [inFlight, byPath] of throughput) {
      const t = byPath.get(p.key);
      const tRatio = t.perSecond / throughput.get(inFlight).get(baseline).perSecond;
      const goal = THROUGHPUT_GOALS[inFlight]?.[p.key];
      const spread = spreadOf(t.runs);
      const spreadGoal = SPREAD_GOALS[inFlight]?.[p.key];
      entry.throughput[inFlight] = {
        calls: t.calls,
        perSecond: t.perSecond,
        runs: t.runs,
        bursts: t.bursts,
        ratio: tRatio,
        goal: goal ?? null,
        met: goal === undefined ? null : tRatio >= goal,
        spread,
        spreadGoal: spreadGoal ?? null,
        spreadMet: spreadGoal === undefined ? null : spread <= spreadGoal,
        cpu: t.cpu,
      };
    }
    summary[p.key] = entry;
  }
  return summary;
}

/** Each path's p50, p95 and p50 ratio of one phase (`figures`), and one more column. */
function p50Table(entries, figures, [heading, last]) {
  table(
    ['path', 'p50 µs', 'p95 µs', 'p50 ratio', heading],
    entries.map(([, e]) => {
      const f = figures(e);
      return [e.label, us(f.p50Us), us(f.p95Us), times(f.p50Ratio), last(e)];
    }),
  );
}

function print(summary) {
  const entries = Object.entries(summary);
  console.log(
    `\nlatency: ${WARMUP.toLocaleString('en-US')} warm-up calls per path, then ${BLOCKS} rounds of ${BLOCK_SIZE}-call blocks per path, ${INTERLEAVE === 'all' ? 'interleaved, every path in one rotation (BENCH_INTERLEAVE=all)' : 'interleaved within each transport (the stdio and embedded paths, then the HTTP paths: header)'}; ratios to the plain server over the same transport`,
  );
  p50Table(entries, (e) => e.latency, [
    'goal',
    (e) => verdict(e.latency.p50Ratio, e.latency.goal ?? undefined, true),
  ]);
  const levels = CONCURRENCY.map((c) => c.inFlight);
  console.log(
    `\nthroughput: median of ${ROUNDS} interleaved bursts per path ${INTERLEAVE === 'all' ? 'in one rotation' : 'within each transport'} (${CONCURRENCY.map((c) => `${count(c.calls)} calls at ${count(c.inFlight)} in flight`).join(', ')}); ratio to the path's baseline (the plain server over the same transport) at the same concurrency`,
  );
  table(
    ['path', ...levels.flatMap((n) => [`calls/s @${count(n)}`, 'ratio', 'goal'])],
    entries.map(([, e]) => [
      e.label,
      ...levels.flatMap((n) => {
        const t = e.throughput[n];
        return [count(t.perSecond), times(t.ratio), verdict(t.ratio, t.goal ?? undefined, false)];
      }),
    ]),
  );
  console.log(
    `\nthroughput spread: the fastest of each path's ${ROUNDS} bursts over its slowest (stable under load)`,
  );
  table(
    ['path', ...levels.flatMap((n) => [`spread @${count(n)}`, 'goal'])],
    entries.map(([, e]) => [
      e.label,
      ...levels.flatMap((n) => {
        const t = e.throughput[n];
        return [times(t.spread), verdict(t.spread, t.spreadGoal ?? undefined, true)];
      }),
    ]),
  );
  const slow = entries.flatMap(([, e]) =>
    levels.flatMap((n) => {
      const t = e.throughput[n];
      return slowBursts(t.bursts, t.perSecond).map(({ burst, speed, typical }) => [
        e.label,
        count(n),
        times(speed),
        ...SLOW_COLUMNS.map(([, show]) => show(burst, typical, e)),
      ]);
    }),
  );
  console.log(
    `\nslow bursts (under ${SLOW_BURST}× their path's median), each beside the mean of that path's other bursts at that concurrency: CPU µs a call of this process and of its main thread, the host's polling turns a call (process sandbox), CPU µs a call of the path's children, this process's GC pauses (ms) and full collections`,
  );
  if (slow.length === 0) console.log('none');
  else table(['path', 'in flight', 'speed', ...SLOW_COLUMNS.map(([heading]) => heading)], slow);
  const last = levels[levels.length - 1];
  console.log(
    `\nCPU µs per call: this process (host; for MCP paths the SDK client) and the path's child processes`,
  );
  table(
    ['path', 'children', 'seq host', 'seq child', 'seq total', `@${count(last)} host`, 'child', 'total'],
    entries.map(([, e]) => {
      const t = e.throughput[last].cpu;
      const s = e.cpuSequential;
      const child = (value) => (e.childProcesses === null ? '-' : us(value));
      return [
        e.label,
        e.childProcesses ?? '-',
        us(s.hostUs),
        child(s.childUs),
        us(s.hostUs + s.childUs),
        us(t.hostUs),
        child(t.childUs),
        us(t.hostUs + t.childUs),
      ];
    }),
  );
  if (!HAS_PROC) console.log('(no /proc here: child CPU reads as 0)');
  const floor = summary.relay;
  const served = summary['serve-process'];
  if (floor !== undefined && served !== undefined) {
    console.log(
      `\nserved stdio against its floor in this run (the plain server behind a byte relay): p50 ${times(floor.latency.p50Ratio)} the plain server, served ${times(served.latency.p50Ratio)}; ${levels.map((n) => `@${count(n)} ${times(floor.throughput[n].ratio)}, served ${times(served.throughput[n].ratio)}`).join('; ')}`,
    );
  }
  console.log(
    `\nafter idleness: ${IDLE_CALLS} single calls per path, each after ${IDLE_MS} ms without a call (a model's turn between two tool calls; the path's own last call one rotation before), the paths in turn; ratio to the plain server over the same transport, beside the ratio of back-to-back calls (no goal: what a client waits for when its calls come apart)`,
  );
  p50Table(entries, (e) => e.idle, ['back to back', (e) => times(e.latency.p50Ratio)]);
}

function commitOf() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

// ---- main ----

const startedAt = new Date();
const loadStart = os.loadavg();
console.log(
  `boundary bench: Node ${process.version}, ${os.cpus().length} CPUs, load average ${loadStart.map((l) => l.toFixed(2)).join(' ')} (1/5/15 min)`,
);

const paths = [];
let exitCode = 0;
try {
  enter('setup');
  tempRoot = await mkdtemp(path.join(os.tmpdir(), 'toolhost-boundary-bench-'));
  await mkdir(path.join(tempRoot, 'plugins'));
  await cp(ECHO_PLUGIN, path.join(tempRoot, 'plugins', 'echo'), { recursive: true });
  await writeFile(path.join(tempRoot, 'toolhost.config.json'), JSON.stringify({ builtins: false }));

  paths.push(await mcpBaseline());
  paths.push(await mcpBaseline({ relayed: true }));
  paths.push(
    await hostPath({
      key: 'inproc',
      label: 'in-process tool, session.call',
      goal: { p50: 0.05 },
      options: { root: tempRoot, pluginsDir: false, customTools: [inProcessEcho] },
      tool: 'inproc_echo',
    }),
  );
  for (const [sandbox, goal] of [
    ['inline', 0.25],
    ['process', 1],
  ]) {
    paths.push(
      await hostPath({
        key: sandbox,
        label: `plugin, ${sandbox} sandbox`,
        goal: { p50: goal },
        childLabel: sandbox === 'process' ? 'executor' : undefined,
        options: { root: tempRoot, sandbox, cache: false },
        tool: 'echo_text',
      }),
    );
  }
  paths.push(await servePath(tempRoot, 'inline'));
  paths.push(await servePath(tempRoot, 'process'));
  paths.push(await mcpHttpBaseline());
  paths.push(await serveHttpPath(tempRoot));

  enter('warm-up');
  for (const p of paths) await warmUp(p);

  enter('latency');
  const latency = await perTransport(paths, latencyPhase);
  const throughput = new Map();
  for (const level of CONCURRENCY) {
    enter(`throughput at ${level.inFlight} in flight`);
    throughput.set(level.inFlight, await perTransport(paths, (group) => throughputPhase(group, level)));
  }
  enter('after idleness');
  const idle = await idlePhase(paths);

  enter('report');
  const summary = summarize(paths, latency, throughput, idle);
  print(summary);
  const loadEnd = os.loadavg();
  console.log(
    `\nload average at the end ${loadEnd.map((l) => l.toFixed(2)).join(' ')}; seconds per phase: ${Object.entries(
      phaseSeconds,
    )
      .filter(([name]) => name !== 'start')
      .map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`)
      .join(', ')}`,
  );
  const missed = Object.values(summary).flatMap((e) => [
    ...(e.latency.met === false ? [`${e.label} p50`] : []),
    ...Object.entries(e.throughput)
      .filter(([, t]) => t.met === false)
      .map(([n]) => `${e.label} throughput @${n}`),
    ...Object.entries(e.throughput)
      .filter(([, t]) => t.spreadMet === false)
      .map(([n]) => `${e.label} throughput spread @${n}`),
  ]);
  console.log(missed.length === 0 ? 'every goal met' : `goals missed: ${missed.join('; ')}`);
  if (STRICT && missed.length > 0) exitCode = 1;
  if (JSON_FILE !== undefined) {
    await writeFile(
      JSON_FILE,
      `${JSON.stringify(
        {
          bench: 'boundary',
          format: 1,
          startedAt: startedAt.toISOString(),
          seconds: (Date.now() - startedAt.getTime()) / 1000,
          commit: commitOf(),
          node: process.version,
          cpus: os.cpus().length,
          loadavg: { start: loadStart, end: loadEnd },
          phaseSeconds,
          settings: {
            blocks: BLOCKS,
            blockSize: BLOCK_SIZE,
            warmup: WARMUP,
            rounds: ROUNDS,
            concurrency: CONCURRENCY,
            idle: { calls: IDLE_CALLS, ms: IDLE_MS },
            interleaving: INTERLEAVE,
            rotations: rotationsOf(paths).map((group) => group.map((p) => p.key)),
          },
          baseline: 'mcp',
          paths: summary,
          missed,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`results written to ${JSON_FILE}`);
  }
} catch (error) {
  console.error(`bench: FAILED (${phase}): ${error?.stack ?? error}`);
  exitCode = 1;
} finally {
  enter('cleanup');
  for (const outcome of await Promise.allSettled(paths.map((p) => p.close()))) {
    if (outcome.status === 'rejected') {
      console.error(`bench: FAILED (cleanup): ${outcome.reason?.message ?? outcome.reason}`);
      exitCode = 1;
    }
  }
  if (exitCode !== 0) killDescendants();
  if (tempRoot !== undefined) await rm(tempRoot, { recursive: true, force: true });
  clearTimeout(watchdog);
}
// Explicit: a handle someone left open must not hang `npm run bench` (the checks above report leaks).
process.exit(exitCode);
