// What the executor's jail costs, side by side with the same executor unjailed (`sandbox.jail`
// 'auto' vs 'off'), in one run:
//   - start: a new ProcessSandbox until its first plugin call is answered (spawn, the prelude,
//     an isolate, the call), BENCH_STARTS rounds, the two alternating;
//   - a bare spawn: `node --version` plain and inside the jail (bubblewrap's own cost);
//   - calls: p50 of a sequential echo call after BENCH_WARMUP warm-up calls, in interleaved blocks
//     of 100 (the jail sits around the process, not on the channel: this shows it costs nothing).
// Run: `npm run build && node --no-node-snapshot bench/jail.mjs` (part of `npm run bench`).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, ProcessSandbox } from '@toolhost/host/internal';
import { bwrapArgs, jailSupport, seccompProgram, systemLibraries } from '../packages/host/dist/jail/index.js';
import { setting } from './lib/settings.mjs';

const STARTS = setting('BENCH_STARTS', 15);
const WARMUP = setting('BENCH_WARMUP', 2_000);
const BLOCKS = setting('BENCH_BLOCKS', 60);

const support = jailSupport();
if (!support.available) {
  console.log(`jail bench: no jail on this machine (${support.reason}); nothing to compare`);
  process.exit(0);
}

const dir = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-jail-'));
await writeFile(
  path.join(dir, 'index.ts'),
  `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import { z } from 'zod';
export default definePlugin({ id: 'echo', tools: [defineTool({ name: 'echo', description: 'echo', input: z.object({ text: z.string() }), execute: ({ text }) => 'echo: ' + text })] });`,
);
const built = await bundlePlugin(path.join(dir, 'index.ts'));
await rm(dir, { recursive: true, force: true });
if (!built.ok) throw new Error(built.error);

const request = (text) => ({
  callId: `c-${text}`,
  toolName: 'echo',
  toolUseId: 'u',
  sessionId: 's',
  input: { text },
  config: null,
  env: {},
  envGranted: [],
  maxResultChars: 10_000,
});
const noCapabilities = async () => null;
const sinks = { log() {}, progress() {} };
const call = async (sandbox, version, text) => {
  const outcome = await sandbox.call(
    'echo',
    version,
    request(text),
    noCapabilities,
    sinks,
    new AbortController().signal,
  );
  const answer = outcome.kind === 'reply' ? outcome.reply?.result?.content?.[0]?.text : undefined;
  if (answer !== `echo: ${text}`) throw new Error(`bench: wrong answer ${JSON.stringify(outcome)}`);
};
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const MODES = ['auto', 'off'];

// ---- start ----
const starts = { auto: [], off: [] };
for (let round = 0; round < STARTS; round++) {
  for (const jail of round % 2 === 0 ? MODES : [...MODES].reverse()) {
    const started = performance.now();
    const sandbox = new ProcessSandbox({ jail });
    const version = sandbox.load('echo', built.code, DEFAULT_SANDBOX_LIMITS);
    await call(sandbox, version, 'first');
    starts[jail].push(performance.now() - started);
    await sandbox.close();
  }
}

// ---- a bare spawn ----
const program = seccompProgram();
const jailArgs = bwrapArgs({
  readOnly: [{ source: process.execPath, path: process.execPath }, ...systemLibraries()],
  env: {},
  tmpBytes: 1 << 20,
  seccomp: program !== undefined,
}).map((arg, i, all) => (all[i - 1] === '--seccomp' ? '0' : arg));
const spawns = { jailed: [], plain: [] };
for (let round = 0; round < STARTS * 2; round++) {
  let started = performance.now();
  spawnSync(support.bwrap, [...jailArgs, process.execPath, '--version'], { input: program ?? '', env: {} });
  spawns.jailed.push(performance.now() - started);
  started = performance.now();
  spawnSync(process.execPath, ['--version']);
  spawns.plain.push(performance.now() - started);
}

// ---- calls ----
const sandboxes = {};
for (const jail of MODES) {
  const sandbox = new ProcessSandbox({ jail });
  const version = sandbox.load('echo', built.code, DEFAULT_SANDBOX_LIMITS);
  for (let i = 0; i < WARMUP; i++) await call(sandbox, version, `w${i}`);
  sandboxes[jail] = { sandbox, version, times: [] };
}
for (let block = 0; block < BLOCKS; block++) {
  for (const jail of block % 2 === 0 ? MODES : [...MODES].reverse()) {
    const { sandbox, version, times } = sandboxes[jail];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      await call(sandbox, version, `b${block}-${i}`);
      times.push(performance.now() - started);
    }
  }
}
for (const { sandbox } of Object.values(sandboxes)) await sandbox.close();

const ms = (value) => `${value.toFixed(1)} ms`;
const us = (value) => `${(value * 1000).toFixed(1)} µs`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const startJailed = median(starts.auto);
const startPlain = median(starts.off);
console.log(`executor jail (bubblewrap${support.seccomp ? ', seccomp' : ''}), jailed vs unjailed, medians:`);
console.log(
  `  start to first answer   ${ms(startJailed)} vs ${ms(startPlain)}  (${ratio(startJailed, startPlain)}, +${ms(startJailed - startPlain)}; ${STARTS} each)`,
);
console.log(
  `  bare spawn (node -v)    ${ms(median(spawns.jailed))} vs ${ms(median(spawns.plain))}  (+${ms(median(spawns.jailed) - median(spawns.plain))})`,
);
const callJailed = median(sandboxes.auto.times);
const callPlain = median(sandboxes.off.times);
console.log(
  `  call p50                ${us(callJailed)} vs ${us(callPlain)}  (${ratio(callJailed, callPlain)}; ${BLOCKS} blocks of 100 each)`,
);
