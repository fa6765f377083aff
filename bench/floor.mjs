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
// and the ratio a served call could reach if everything else were free:
//   (plain + pipe round trip + isolate entry after an MCP call) / plain.
// Run: `node --no-node-snapshot bench/floor.mjs` (in `npm run bench`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ivm from 'isolated-vm';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 100);
const BLOCK = 100;

const require = createRequire(import.meta.url);
const everything = (() => {
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  return path.join(path.dirname(manifest), require(manifest).bin['mcp-server-everything']);
})();

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

const client = new Client({ name: 'floor-bench', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }),
);
const plain = (text) => client.callTool({ name: 'echo', arguments: { message: text } });

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
const [pipe, , entry, server] = paths.map((p) => p50(p.samples));
console.log(
  `served stdio with the jailed executor cannot go under (plain + pipe + entry after an MCP call) / plain = ${((server + pipe + entry) / server).toFixed(2)}× the plain server's p50 here (goal 1.5×)`,
);
await client.close();
child.kill();
isolate.dispose();
