import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the benches, without types
import { cachedNode } from '../../bench/lib/cached-node.mjs';
import { REPO } from '../cli/cli.js';

/**
 * On a Node older than 24, `npm install` stops before anything is downloaded or built, saying
 * which Node it needs; never a compiler error from isolated-vm's native build. Node 20 comes from
 * the npm registry's `node` package (as `.ci/run` brings Node 24), cached outside the checkout.
 */
/** npm's own script, to run it with Node 20: the npm running this suite, else the one on PATH. */
function npmCliPath(): string {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv !== undefined && existsSync(fromEnv)) return fromEnv;
  const onPath = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  return spawnSync('readlink', ['-f', onPath], { encoding: 'utf8' }).stdout.trim();
}

describe('npm install on a Node older than 24', () => {
  let project: string;
  let node20: string;
  beforeAll(() => {
    node20 = cachedNode(20).binary;
    // The checkout's install entry points only: its package.json, lock file and .npmrc.
    project = mkdtempSync(path.join(tmpdir(), 'toolhost-old-node-'));
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
      copyFileSync(path.join(REPO, file), path.join(project, file));
    }
  }, 180_000);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('stops at once, before any download or build, naming the Node it needs', () => {
    const run = spawnSync(node20, [npmCliPath(), 'install', '--no-audit', '--no-fund'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.dirname(node20)}${path.delimiter}${process.env.PATH}` },
      timeout: 60_000,
    });
    const said = `${run.stdout}${run.stderr}`;
    expect(run.status).not.toBe(0);
    expect(said).toContain('EBADENGINE');
    expect(said).toContain('Required: {"node":">=24"}');
    expect(said).not.toMatch(/gyp|g\+\+|make:/);
    expect(existsSync(path.join(project, 'node_modules'))).toBe(false);
  });

  it("installed as a package, @toolhost/host's preinstall says which Node and how to get it, in one line", () => {
    const script = path.join(REPO, 'packages/host/scripts/check-node.cjs');
    const old = spawnSync(node20, [script], { encoding: 'utf8' });
    expect(old.status).toBe(1);
    const lines = old.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^toolhost needs Node\.js 24 or later, and this is v20\.\d+\.\d+: install Node 24 LTS \(https:\/\/nodejs\.org/,
    );
    expect(spawnSync(process.execPath, [script], { encoding: 'utf8' }).status).toBe(0);
  });
});
