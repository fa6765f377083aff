// The floor under the served paths' goals (issue 29): what the architecture itself costs on this
// machine, with no MCP, no validation and no toolhost code. A call served by `toolhost serve` with
// the jailed executor crosses two pipes where a plain MCP server crosses one, and enters an
// isolate: so at the least it costs the plain server's time plus one more pipe round trip between
// two Node processes plus one isolate entry. Measured here side by side, interleaved:
//   pipe round trip   a line of JSON to a child Node process and back (what the executor hop adds)
//   isolate entry     applySync of a function in an isolated-vm isolate, a string in and out, in a
//                     loop of entries (hot: what the entry costs at best)
//   isolate entry, after an MCP call   the same entry, timed alone, right after a plain MCP call
//                     made by this process (untimed): a served call's entry follows the protocol's
//                     work, which has pushed the isolate's code and data out of the CPU's caches
//   plain server      server-everything's echo over stdio through the SDK client (the baseline)
//   the SDK's v2 server   a plain echo server on the SDK `toolhost serve` is built on, with serve's
//                     entry (bench/lib/sdk-v2-echo.mjs): what that SDK costs by itself
//   plain server behind a byte relay   the same server with one more Node process in the chain
//                     that copies bytes and parses nothing (bench/lib/byte-relay.mjs): the shape of
//                     `toolhost serve` with its jailed executor (the protocol in one process, a
//                     second process on the path of every call), measured whole, under the same load
// and the ratios a path could reach if everything else were free:
//   served stdio p50, sum of parts       (plain + pipe round trip + isolate entry after an MCP call) / plain
//   served stdio p50, in the chain       (plain behind the relay + isolate entry after an MCP call) / plain
//   process-sandbox plugin p50           (pipe round trip + isolate entry after an MCP call) / plain
//   served stdio calls/s at 64 and at 5,000 in flight: plain behind the relay / plain (an upper
//                     bound: the executor enters an isolate where the relay only copies). These
//                     paths rotate only with each other: bench/boundary.mjs measures the same
//                     relayed server in its own stdio rotation, where the plain server ran 2.4×
//                     slower at 64 in flight (17-18k against 42.8k calls/s, 2026-12-07); its
//                     "against its floor" line is the bound of that run's served figures.
// Throughput: BENCH_ROUNDS (5) interleaved bursts per path at each concurrency (5,000 calls at 64
// in flight, 20,000 at 5,000, as in bench/boundary.mjs), median calls/s.
// Run: `node --no-node-snapshot bench/floor.mjs` (in `npm run bench`).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ivm from 'isolated-vm';
import { BYTE_RELAY, EVERYTHING_BIN } from './lib/paths.mjs';
import { setting } from './lib/settings.mjs';

const WARMUP = setting('BENCH_WARMUP', 2000);
const BLOCKS = setting('BENCH_BLOCKS', 100);
const BLOCK = 100;
const ROUNDS = setting('BENCH_ROUNDS', 5);
/** Calls per burst; BENCH_BURST_CALLS sets every burst's (a smoke run's: test/bench/goals.test.ts). */
const CONCURRENCY = [
  { inFlight: 64, calls: setting('BENCH_BURST_CALLS', 5_000) },
  { inFlight: 5_000, calls: setting('BENCH_BURST_CALLS', 20_000) },
];

// A child that answers each line with the same line: the least a second process hop can cost.
const child = spawn(
  process.execPath,
  [
    '-e',
    "process.stdin.setEncoding('utf8');let b='';process.stdin.on('data',d=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){process.stdout.write(b.slice(0,i+1));b=b.slice(i+1);}})",
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const lines = createInterface({ input: child.stdout });
let answer;
lines.on('line', (line) => answer?.(line));
const roundTrip = (text) =>
  new Promise((resolve) => {
    answer = resolve;
    child.stdin.write(`${JSON.stringify({ id: 1, text })}\n`);
  });

const isolate = new ivm.Isolate({ memoryLimit: 64 });
const context = isolate.createContextSync();
const echo = context.evalSync("(text) => 'echo: ' + text", { reference: true });
const enter = async (text) => echo.applySync(undefined, [text], { result: { copy: true } });

/** An SDK client of `node <args>` over stdio; `call` checks each answer (a broken path fails loudly). */
async function mcpClient(label, args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'floor-bench', version: '1.0.0' });
  await client.connect(transport);
  // As in boundary.mjs: a 'drain' listener per message written while the pipe is full, by design.
  transport._process?.stdin?.setMaxListeners(0);
  const call = async (text) => {
    const result = await client.callTool({ name: 'echo', arguments: { message: text } });
    if (result.content?.[0]?.text !== `Echo: ${text}`) {
      throw new Error(`${label}: unexpected answer to "${text}": ${JSON.stringify(result).slice(0, 300)}`);
    }
    return result;
  };
  return { call, close: () => client.close() };
}
const direct = await mcpClient('plain server', [EVERYTHING_BIN, 'stdio']);
const relayed = await mcpClient('plain server behind a byte relay', [BYTE_RELAY, EVERYTHING_BIN, 'stdio']);
const v2 = await mcpClient("the SDK's v2 server", [
  fileURLToPath(new URL('./lib/sdk-v2-echo.mjs', import.meta.url)),
]);
const plain = direct.call;

/** `run` timed whole, in µs. */
const timed = (run) => async (text) => {
  const started = performance.now();
  await run(text);
  return (performance.now() - started) * 1000;
};
/** The isolate entry timed alone, after a plain MCP call that is not. */
const enterAfterCall = async (text) => {
  await plain(text);
  const started = performance.now();
  await enter(text);
  return (performance.now() - started) * 1000;
};

const paths = [
  { label: 'pipe round trip (two Node processes)', run: timed(roundTrip), samples: [] },
  { label: 'isolate entry (applySync), hot', run: timed(enter), samples: [] },
  { label: 'isolate entry, after an MCP call', run: enterAfterCall, samples: [] },
  { label: 'plain MCP server over stdio (echo)', run: timed(plain), samples: [] },
  { label: 'plain server behind a byte relay', run: timed(relayed.call), samples: [] },
  { label: "the SDK's v2 server (echo)", run: timed(v2.call), samples: [] },
];
for (const p of paths) for (let i = 0; i < WARMUP; i++) await p.run(`w${i}`);
for (let round = 0; round < BLOCKS; round++) {
  for (let k = 0; k < paths.length; k++) {
    const p = paths[(round + k) % paths.length];
    for (let i = 0; i < BLOCK; i++) p.samples.push(await p.run(`s${i}`));
  }
}
const p50 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `floor: ${BLOCKS * BLOCK} calls per path after ${WARMUP} warm-up calls, interleaved blocks of ${BLOCK}`,
);
for (const p of paths) console.log(`${p.label.padEnd(40)} p50 ${p50(p.samples).toFixed(1).padStart(7)} µs`);
const [pipe, , entry, server, chain, sdkV2] = paths.map((p) => p50(p.samples));
const ratio = (value) => `${value.toFixed(2)}×`;
console.log('floors, as ratios to the plain server (p50):');
console.log(
  `  served stdio, sum of parts: (plain + pipe + entry after an MCP call) / plain = ${ratio((server + pipe + entry) / server)} (goal ≤ 1.5×)`,
);
console.log(
  `  served stdio, in the chain: (plain behind the relay + entry after an MCP call) / plain = ${ratio((chain + entry) / server)} (goal ≤ 1.5×)`,
);
console.log(
  `  process-sandbox plugin: (pipe + entry after an MCP call) / plain = ${ratio((pipe + entry) / server)} (goal ≤ 1×)`,
);
console.log(`  the SDK's v2 server alone: ${ratio(sdkV2 / server)} the plain (v1) server's p50`);

/** `calls` calls of `call`, `inFlight` at a time: calls per second. */
async function burst(call, inFlight, calls) {
  let next = 0;
  const worker = async () => {
    while (next < calls) await call(`c${next++}`);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return calls / ((performance.now() - started) / 1000);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`throughput: median of ${ROUNDS} interleaved bursts per path`);
for (const { inFlight, calls } of CONCURRENCY) {
  const rates = { plain: [], relayed: [], v2: [] };
  const order = [
    ['plain', plain],
    ['relayed', relayed.call],
    ['v2', v2.call],
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < order.length; k++) {
      const [key, call] = order[(round + k) % order.length];
      rates[key].push(await burst(call, inFlight, calls));
    }
  }
  const [p, r, s2] = [median(rates.plain), median(rates.relayed), median(rates.v2)];
  const perSecond = (value) => Math.round(value).toLocaleString('en-US');
  console.log(
    `  at ${inFlight.toLocaleString('en-US')} in flight (${calls.toLocaleString('en-US')} calls a burst): plain ${perSecond(p)} calls/s, behind the relay ${perSecond(r)} → served stdio cannot go over ${ratio(r / p)} the plain server here (goal ≥ 1×); the SDK's v2 server alone ${perSecond(s2)} (${ratio(s2 / p)})`,
  );
}
await direct.close();
await relayed.close();
await v2.close();
child.kill();
isolate.dispose();
