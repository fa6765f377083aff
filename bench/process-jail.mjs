// What the jail of the process tools costs, side by side with the same tool unjailed
// (`sandbox: false`), in one run:
//   - exec: one call of `true`, BENCH_EXEC_CALLS each, interleaved: unjailed, jailed (bubblewrap
//     alone), jailed with a net grant (bubblewrap, the network gate's proxies and the relay);
//   - a stdio MCP server (`server-everything`): start to connected (spawn, initialize,
//     tools/list), BENCH_STARTS each, alternating; then `tools/call` of echo, p50 over
//     BENCH_BLOCKS interleaved blocks of 100 after BENCH_WARMUP warm-up calls;
//   - `@anthropic-ai/sandbox-runtime`'s SandboxManager for comparison where it can run (it needs
//     socat and ripgrep on Linux): initialize once, then one wrapped `true`.
// Run: `npm run build && node --no-node-snapshot bench/process-jail.mjs` (part of `npm run bench`).
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost } from '@toolhost/host';
import { McpBridge } from '@toolhost/host/internal';
import { jailSupport } from '../packages/host/dist/jail/index.js';
import { setting } from './lib/settings.mjs';

const EXEC_CALLS = setting('BENCH_EXEC_CALLS', 40);
const STARTS = setting('BENCH_STARTS', 10);
const WARMUP = setting('BENCH_WARMUP', 1_000);
const BLOCKS = setting('BENCH_BLOCKS', 20);

const support = jailSupport();
if (!support.available) {
  console.log(`process jail bench: no jail on this machine (${support.reason}); nothing to compare`);
  process.exit(0);
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ms = (value) => `${value.toFixed(1)} ms`;
const us = (value) => `${(value * 1000).toFixed(1)} µs`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

// ---- exec ----
const root = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-exec-'));
const EXEC_MODES = {
  unjailed: { enabled: true, sandbox: false },
  jailed: { enabled: true },
  'jailed + net': { enabled: true, sandbox: { net: ['example.com'] } },
};
const hosts = {};
for (const [name, exec] of Object.entries(EXEC_MODES)) {
  const dir = path.join(root, name.replace(/\W/g, '-'));
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'toolhost.config.json'), JSON.stringify({ builtins: { exec } }));
  hosts[name] = await createHost({
    root: dir,
    watch: false,
    cache: false,
    pluginsDir: false,
    skillsDir: false,
  });
}
const execTimes = Object.fromEntries(Object.keys(EXEC_MODES).map((name) => [name, []]));
for (let i = 0; i < EXEC_CALLS; i++) {
  const order = Object.keys(EXEC_MODES);
  for (const name of i % 2 === 0 ? order : order.reverse()) {
    const started = performance.now();
    const { status } = await hosts[name].session().call('exec', { command: 'true' });
    if (status !== 'ok') throw new Error(`bench: exec ${name} ${status}`);
    execTimes[name].push(performance.now() - started);
  }
}
for (const host of Object.values(hosts)) await host.close();
await rm(root, { recursive: true, force: true });

// ---- a stdio MCP server ----
const require = createRequire(import.meta.url);
const everythingDir = path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
const nodeModules = path.resolve(everythingDir, '../..');
const server = (jailed) => ({
  command: process.execPath,
  args: [path.join(everythingDir, 'dist', 'index.js'), 'stdio'],
  sandbox: jailed ? { fs: { read: [nodeModules] } } : false,
});
const SERVER_MODES = ['jailed', 'unjailed'];
const serverStarts = { jailed: [], unjailed: [] };
for (let round = 0; round < STARTS; round++) {
  for (const mode of round % 2 === 0 ? SERVER_MODES : [...SERVER_MODES].reverse()) {
    const bridge = new McpBridge({ onChange() {} });
    const started = performance.now();
    await bridge.update({ e: server(mode === 'jailed') });
    if (bridge.status()[0]?.state !== 'connected')
      throw new Error(`bench: ${JSON.stringify(bridge.status())}`);
    serverStarts[mode].push(performance.now() - started);
    await bridge.close();
  }
}
const ctx = {
  signal: new AbortController().signal,
  progress() {},
  log: { debug() {}, info() {}, warn() {}, error() {} },
};
const bridges = {};
for (const mode of SERVER_MODES) {
  const bridge = new McpBridge({ onChange() {} });
  await bridge.update({ e: server(mode === 'jailed') });
  const echo = bridge.sources()[0].tools.find((tool) => tool.descriptor.name === 'mcp__e__echo');
  for (let i = 0; i < WARMUP; i++) await echo.executor.run({ message: 'w' }, ctx);
  bridges[mode] = { bridge, echo, times: [] };
}
for (let block = 0; block < BLOCKS; block++) {
  for (const mode of block % 2 === 0 ? SERVER_MODES : [...SERVER_MODES].reverse()) {
    const { echo, times } = bridges[mode];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      await echo.executor.run({ message: 'b' }, ctx);
      times.push(performance.now() - started);
    }
  }
}
for (const { bridge } of Object.values(bridges)) await bridge.close();

// ---- @anthropic-ai/sandbox-runtime's manager, where it can run ----
let runtime = 'not measured: its Linux sandbox needs socat and ripgrep (rg), not installed here';
if (spawnSync('socat', ['-V']).status === 0 && spawnSync('rg', ['--version']).status === 0) {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  const started = performance.now();
  await SandboxManager.initialize({
    network: { allowedDomains: ['example.com'], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [tmpdir()], denyWrite: [] },
  });
  const init = performance.now() - started;
  const wrapped = [];
  for (let i = 0; i < EXEC_CALLS; i++) {
    const t = performance.now();
    const command = await SandboxManager.wrapWithSandbox('true');
    await new Promise((resolve) =>
      spawn('/bin/bash', ['-c', command], { stdio: 'ignore' }).once('close', resolve),
    );
    wrapped.push(performance.now() - t);
  }
  await SandboxManager.reset();
  runtime = `initialize ${ms(init)} once, then ${ms(median(wrapped))} per wrapped \`true\` (one policy per process)`;
}

console.log(`process tool jails (bubblewrap${support.seccomp ? ', seccomp' : ''}), medians:`);
const [plain, jailed, net] = Object.keys(EXEC_MODES).map((name) => median(execTimes[name]));
console.log(
  `  exec call (true)        unjailed ${ms(plain)}, jailed ${ms(jailed)} (+${ms(jailed - plain)}), jailed + net grant ${ms(net)} (+${ms(net - plain)}); ${EXEC_CALLS} each`,
);
const [startJailed, startPlain] = SERVER_MODES.map((mode) => median(serverStarts[mode]));
console.log(
  `  MCP server start        ${ms(startJailed)} vs ${ms(startPlain)} unjailed  (${ratio(startJailed, startPlain)}, +${ms(startJailed - startPlain)}; ${STARTS} each)`,
);
const [callJailed, callPlain] = SERVER_MODES.map((mode) => median(bridges[mode].times));
console.log(
  `  MCP tools/call p50      ${us(callJailed)} vs ${us(callPlain)} unjailed  (${ratio(callJailed, callPlain)}; ${BLOCKS} blocks of 100 each)`,
);
console.log(`  sandbox-runtime         ${runtime}`);
