import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, project, REPO } from '../cli/cli.js';

const HOOK = path.join(REPO, 'test/fixtures/hooks/log-spawn-sync.cjs');
const HOST = path.join(REPO, 'test/fixtures/hosts/mark-phases-host.mjs');

/** Runs the phase-marking host on `root` under the spawn log; resolves with the log's lines. */
async function runHost(root: string, log: string): Promise<string[]> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--require', HOOK, HOST, root], {
    env: cleanEnv({ TOOLHOST_TEST_SPAWN_LOG: log }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code, stderr).toBe(0);
  return (await readFile(log, 'utf8')).trim().split('\n');
}

describe('the jail probe', () => {
  it('waits for the first executor: a host that starts from its manifest cache runs no bubblewrap until a call needs one', async () => {
    const { root, dispose } = await project(['healthy']);
    try {
      // The first start builds and describes the plugin in the executor: the probe runs then.
      const cold = await runHost(root, path.join(root, 'cold.log'));
      expect(cold.indexOf('spawnSync bwrap')).toBeGreaterThanOrEqual(0);
      expect(cold.indexOf('spawnSync bwrap')).toBeLessThan(cold.indexOf('created'));
      // The second start answers from the cache: no executor, so no probe, until the call.
      const warm = await runHost(root, path.join(root, 'warm.log'));
      const created = warm.indexOf('created');
      expect(warm.slice(0, created)).toEqual([]);
      expect(warm.slice(created + 1)).toContain('spawnSync bwrap');
      expect(warm.at(-1)).toBe('called ok');
    } finally {
      await dispose();
    }
  });
});
