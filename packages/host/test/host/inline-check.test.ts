import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkInlineSandbox } from '../../src/host/inline-check.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');

describe("sandbox 'inline' without --no-node-snapshot", () => {
  it('createHost refuses to start, saying how to fix it (built host, a Node without the flag)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'toolhost-inline-'));
    try {
      const script =
        `const { createHost } = await import(${JSON.stringify(pathToFileURL(DIST).href)});` +
        `try { await createHost({ root: ${JSON.stringify(root)}, sandbox: 'inline' }); console.log('started'); }` +
        'catch (e) { console.log(e.code + ": " + e.message); }';
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
        timeout: 60_000,
      });
      expect(run.stdout).toContain(
        "inline-needs-no-node-snapshot: sandbox 'inline' runs plugin isolates in this process",
      );
      expect(run.stdout).toContain("Run node --no-node-snapshot your-script.js, or use sandbox 'process'");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('is checked only where it matters: inline, Node 20 or later, flag absent', () => {
    expect(() => checkInlineSandbox('process', [], '20.20.0')).not.toThrow();
    expect(() => checkInlineSandbox('inline', ['--no-node-snapshot'], '22.1.0')).not.toThrow();
    expect(() => checkInlineSandbox('inline', [], '18.19.0')).not.toThrow();
    expect(() => checkInlineSandbox('inline', [], '20.20.0')).toThrow(/--no-node-snapshot/);
  });
});
