// Load pipeline: cold start (no cache), warm start (cache on, second start) and the host's memory
// after loading N generated plugins (one folder each, index.ts importing the SDK and zod, 3 tools).
// Usage: node --no-node-snapshot bench/load-pipeline.mjs [count=100] [sandbox=process] [cold]
// Each start runs in a fresh child process so one start's memory and caches do not reach the next.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const count = Number(process.argv[2] ?? 100);
const sandbox = process.argv[3] ?? 'process';

function pluginSource(i) {
  const tool = (n) => `    defineTool({
      name: 'p${i}_t${n}',
      description: 'tool ${n} of plugin p${i}',
      input: z.object({ text: z.string(), times: z.number().int().optional() }),
      execute: ({ text, times }) => \`p${i}/${n}: \${text.repeat(times ?? 1)}\`,
    }),`;
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'p${i}',
  tools: [
${[1, 2, 3].map(tool).join('\n')}
  ],
});
`;
}

/** RSS (MB) of this process's descendants, by kind (esbuild service, executor, other). */
function childrenRss(pid = process.pid, into = { esbuild: 0, executor: 0, other: 0 }) {
  const kids = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`))
      kids.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean));
  } catch {}
  for (const kid of kids) {
    try {
      const cmd = readFileSync(`/proc/${kid}/cmdline`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${kid}/status`, 'utf8'))[1]) / 1024;
      const kind = cmd.includes('esbuild') ? 'esbuild' : cmd.includes('executor') ? 'executor' : 'other';
      into[kind] += rss;
    } catch {}
    childrenRss(kid, into);
  }
  return into;
}

if (process.argv[2] === '--child') {
  const [, , , , root, mode, box] = process.argv;
  const { createHost } = await import('@toolhost/host');
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const host = await createHost({ root, builtins: false, sandbox: box, cache: mode !== 'nocache' });
  const ms = performance.now() - started;
  const tools = host.plugins.filter((p) => p.status === 'loaded').length;
  const after = process.memoryUsage().rss;
  const kids = childrenRss();
  // The build worker ends its esbuild service after 10 s with nothing to do.
  if (mode === 'nocache') await new Promise((resolve) => setTimeout(resolve, 11_000));
  const idleKids = childrenRss();
  await host.close();
  process.stdout.write(
    JSON.stringify({ ms, rssBeforeMB: before / 2 ** 20, rssAfterMB: after / 2 ** 20, tools, kids, idleKids }),
  );
  process.exit(0);
}

const root = await mkdtemp(path.join(tmpdir(), 'toolhost-load-bench-'));
for (let i = 0; i < count; i++) {
  await mkdir(path.join(root, 'plugins', `p${i}`), { recursive: true });
  await writeFile(path.join(root, 'plugins', `p${i}`, 'index.ts'), pluginSource(i));
}
const self = fileURLToPath(import.meta.url);
const run = (mode) =>
  JSON.parse(
    execFileSync(process.execPath, ['--no-node-snapshot', self, '--child', '-', root, mode, sandbox], {
      encoding: 'utf8',
      cwd: path.dirname(path.dirname(self)),
    }),
  );
const fmt = (r) =>
  `${r.ms.toFixed(0)} ms, ${r.tools} loaded, host RSS ${r.rssBeforeMB.toFixed(0)} -> ${r.rssAfterMB.toFixed(0)} MB, ` +
  `esbuild ${r.kids.esbuild.toFixed(0)} MB (11 s later ${r.idleKids.esbuild.toFixed(0)} MB), executor ${r.kids.executor.toFixed(0)} MB`;
console.log(`${count} plugins, sandbox ${sandbox}`);
console.log(`cold (cache off):          ${fmt(run('nocache'))}`);
if (process.argv[4] === 'cold') process.exit(0);
await rm(path.join(root, '.toolhost'), { recursive: true, force: true });
console.log(`first start (cache empty): ${fmt(run('cache'))}`);
for (let i = 0; i < 3; i++) console.log(`warm start ${i + 1}:              ${fmt(run('cache'))}`);
await rm(root, { recursive: true, force: true });
