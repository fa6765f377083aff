// The plugin call path alone, one code tree against another in one process: a valid and an
// invalid echo_text call, in an `inline` and a `process` sandbox, interleaved in blocks of 100
// calls (the order rotates each round), after BENCH_WARMUP warm-up calls per path. Meant for
// comparing a change with the tree it started from (the whole boundary lives in
// bench/boundary.mjs): BENCH_BEFORE=<a built copy of the repository> names the other tree; without
// it only this tree is measured. Reports the median µs per call of each path and after/before.
//
// Run: `npm run build && BENCH_BEFORE=/path/to/old/tree node --no-node-snapshot bench/call-path.mjs`.
// Environment: BENCH_BLOCKS (default 60), BENCH_WARMUP (2000). Compare ratios, not absolute numbers.
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ECHO_PLUGIN, REPO } from './lib/paths.mjs';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);
const BLOCK = 100;

const trees = [{ name: 'after', root: REPO }];
if (process.env.BENCH_BEFORE) trees.unshift({ name: 'before', root: path.resolve(process.env.BENCH_BEFORE) });

const project = await mkdtemp(path.join(os.tmpdir(), 'toolhost-call-path-'));
await mkdir(path.join(project, 'plugins'));
await cp(ECHO_PLUGIN, path.join(project, 'plugins', 'echo'), { recursive: true });
await writeFile(path.join(project, 'toolhost.config.json'), JSON.stringify({ builtins: false }));

const paths = [];
const hosts = [];
try {
  for (const tree of trees) {
    const { createHost } = await import(
      pathToFileURL(path.join(tree.root, 'packages/host/dist/index.js')).href
    );
    for (const sandbox of ['inline', 'process']) {
      // Unjailed, so a copied tree's executor can reach its linked node_modules: the jail's cost is
      // paid at spawn (bench/jail.mjs), not per call.
      const mode = sandbox === 'process' ? { mode: 'process', jail: 'off' } : 'inline';
      const host = await createHost({ root: project, sandbox: mode, cache: false, builtins: false });
      hosts.push(host);
      const session = host.session();
      for (const valid of [true, false]) {
        paths.push({
          key: `${sandbox} ${valid ? 'valid' : 'invalid'} ${tree.name}`,
          call: async (i) => {
            const outcome = await session.call('echo_text', { text: valid ? `t${i}` : i });
            if ((outcome.status === 'ok') !== valid) {
              throw new Error(`${tree.name}/${sandbox}: unexpected ${JSON.stringify(outcome.result)}`);
            }
          },
          samples: [],
        });
      }
    }
  }
  for (const p of paths) for (let i = 0; i < WARMUP; i++) await p.call(i);
  for (let round = 0; round < BLOCKS; round++) {
    for (let k = 0; k < paths.length; k++) {
      const p = paths[(round + k) % paths.length];
      const started = performance.now();
      for (let i = 0; i < BLOCK; i++) await p.call(i);
      p.samples.push(((performance.now() - started) * 1000) / BLOCK);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const byKey = new Map(paths.map((p) => [p.key, median(p.samples)]));
  for (const [key, us] of byKey) {
    const before = key.endsWith(' after') ? byKey.get(key.replace(/ after$/, ' before')) : undefined;
    const ratio = before === undefined ? '' : `  after/before ${(us / before).toFixed(2)}`;
    console.log(`${key.padEnd(24)} ${us.toFixed(1).padStart(8)} µs/call${ratio}`);
  }
} finally {
  for (const host of hosts) await host.close();
  await rm(project, { recursive: true, force: true });
}
