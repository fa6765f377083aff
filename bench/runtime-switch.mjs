// Before and after the runtime switch (Node 20 + isolated-vm 5.0.4 → Node 24 + isolated-vm 7):
// bench/boundary.mjs of the last commit before the switch, run on Node 20, and of this checkout,
// run on this Node, alternating, each writing its results (BENCH_JSON); then
// bench/boundary-compare.mjs prints every path's ratios side by side. Each run's ratios are to its
// own plain MCP server on its own Node, so the two runtimes are compared as a user would see them.
//
// The baseline is made once and kept in a cache outside the checkout
// (${XDG_CACHE_HOME:-~/.cache}/toolhost/): Node 20 from the npm registry's `node` package, the
// baseline commit's files (`git archive`), its dependencies installed with that Node (isolated-vm
// 5.0.4 is compiled: needs make and g++). Needs this checkout's git history.
// Run: `npm run build && node bench/runtime-switch.mjs` (part of `npm run bench`).
// Environment: BENCH_SWITCH_RUNS (2 per side), and boundary.mjs's own (BENCH_BLOCKS, BENCH_ROUNDS…).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE, cachedNode } from './lib/cached-node.mjs';
import { REPO } from './lib/paths.mjs';
import { setting } from './lib/settings.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The last commit on Node 20 and isolated-vm 5.0.4. */
const BASELINE = '1ccf79d';
const RUNS = setting('BENCH_SWITCH_RUNS', 2);
const baseline = path.join(CACHE, `bench-baseline-${BASELINE}`);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`runtime-switch: ${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(1);
  }
}

try {
  execFileSync('git', ['-C', REPO, 'cat-file', '-e', `${BASELINE}^{commit}`], { stdio: 'ignore' });
} catch {
  console.log(`runtime-switch: commit ${BASELINE} is not in this checkout's history; nothing to compare`);
  process.exit(0);
}

const { binary: node20, headers: node20Headers } = cachedNode(20);
const node20Bin = path.dirname(node20);
const env20 = {
  ...process.env,
  PATH: `${node20Bin}${path.delimiter}${process.env.PATH}`,
  // node-gyp builds isolated-vm 5.0.4 against this Node's own headers (the package ships them).
  npm_config_nodedir: node20Headers,
  // `npm run bench` hands the checkout's npm settings to its scripts as npm_config_*, engine-strict
  // among them (this checkout refuses a Node older than 24). The baseline is installed with Node 20
  // on purpose, and its lockfile holds dev dependencies whose engines want Node 22 (openai 7.55,
  // which no bench uses): strict, that install stopped `npm run bench` here.
  npm_config_engine_strict: 'false',
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
};
if (!existsSync(path.join(baseline, 'packages', 'host', 'dist', 'index.js'))) {
  console.log(
    `runtime-switch: preparing the baseline (${BASELINE}, Node 20, isolated-vm 5.0.4) in ${baseline}`,
  );
  mkdirSync(baseline, { recursive: true });
  const archive = execFileSync('git', ['-C', REPO, 'archive', BASELINE], { maxBuffer: 1 << 30 });
  run('tar', ['-x', '-C', baseline], { input: archive, stdio: ['pipe', 'inherit', 'inherit'] });
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: baseline, env: env20 });
}

const out = mkdtempSync(path.join(tmpdir(), 'toolhost-runtime-switch-'));
const files = { before: [], after: [] };
for (let i = 0; i < RUNS; i++) {
  for (const side of i % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
    const file = path.join(out, `${side}-${i + 1}.json`);
    const [cwd, env] = side === 'before' ? [baseline, env20] : [REPO, process.env];
    const nodeBin = side === 'before' ? node20 : process.execPath;
    console.log(
      `runtime-switch: ${side} the switch, run ${i + 1} (${side === 'before' ? 'Node 20, isolated-vm 5.0.4' : `${process.version}, isolated-vm 7`})`,
    );
    run(nodeBin, ['--no-node-snapshot', path.join(cwd, 'bench', 'boundary.mjs')], {
      cwd,
      env: { ...env, BENCH_JSON: file },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    files[side].push(file);
  }
}
console.log('\nbefore (Node 20, isolated-vm 5.0.4) | after (this runtime): each column one run');
run(process.execPath, [path.join(here, 'boundary-compare.mjs'), ...files.before, ...files.after]);
