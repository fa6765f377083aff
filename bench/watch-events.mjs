// What chokidar 5 delivers for the saves editors make (the evidence for watch.ts's SETTLE_MS and its
// filter of files no build can read). Run: node bench/watch-events.mjs

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { watch } from 'chokidar';

const root = mkdtempSync(path.join(tmpdir(), 'chok-'));
const p = path.join(root, 'plugins', 'a');
mkdirSync(p, { recursive: true });
writeFileSync(path.join(p, 'index.ts'), 'v0');
writeFileSync(path.join(p, 'helper.ts'), 'h0');
const w = watch(path.join(root, 'plugins'), { ignoreInitial: true });
let t0 = 0;
const log = [];
w.on('all', (e, f) => log.push(`${(performance.now() - t0).toFixed(1)}ms ${e} ${path.basename(f)}`));
await new Promise((r) => w.once('ready', r));
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const cases = {
  'plain write': async (i) => writeFile(path.join(p, 'index.ts'), `v${i}`),
  'write temp then rename (vim backupcopy=no / VS Code)': async (i) => {
    const t = path.join(p, `.index.ts.${i}.tmp`);
    await writeFile(t, `r${i}`);
    await rename(t, path.join(p, 'index.ts'));
  },
  'vim default (index.ts~ backup, rename away, write new)': async (i) => {
    await rename(path.join(p, 'index.ts'), path.join(p, 'index.ts~'));
    await writeFile(path.join(p, 'index.ts'), `vim${i}`);
  },
  'save touching 2 files': async (i) => {
    await writeFile(path.join(p, 'helper.ts'), `h${i}`);
    await writeFile(path.join(p, 'index.ts'), `w${i}`);
  },
};
for (const [name, op] of Object.entries(cases)) {
  for (let i = 1; i <= 3; i++) {
    log.length = 0;
    t0 = performance.now();
    await op(i);
    await pause(400);
    console.log(`${name} #${i}: ${log.join(' | ')}`);
  }
}
await w.close();
await rm(root, { recursive: true, force: true });
