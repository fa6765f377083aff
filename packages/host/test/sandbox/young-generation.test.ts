import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const helper = fileURLToPath(new URL('../../dist/sandbox/young-generation.js', import.meta.url));
const ivmEntry = fileURLToPath(
  new URL('../../../../node_modules/isolated-vm/isolated-vm.js', import.meta.url),
);

/**
 * A child started like the executor (with its large young generation), which creates one plugin
 * isolate after `reset` (or not) and churns short-lived garbage in it: prints that isolate's heap
 * size in MB.
 */
async function isolateHeapMb(reset: boolean): Promise<number> {
  const script = `
    const { default: ivm } = await import(${JSON.stringify(ivmEntry)});
    ${reset ? `(await import(${JSON.stringify(helper)})).pluginIsolatesUseTheirOwnYoungGeneration();` : ''}
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    const context = await isolate.createContext();
    await context.eval('let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 50000) keep = []; }');
    console.log(isolate.getHeapStatisticsSync().total_heap_size / 1048576);`;
  const { stdout } = await run(process.execPath, [
    '--no-node-snapshot',
    '--max-semi-space-size=64',
    '--input-type=module',
    '--eval',
    script,
  ]);
  return Number(stdout.trim());
}

describe("the executor's young generation", () => {
  it('is not every plugin isolate’s: after the reset an isolate churning garbage keeps a small heap', async () => {
    const [kept, reset] = await Promise.all([isolateHeapMb(false), isolateHeapMb(true)]);
    // With the executor's flag in force the isolate's semi-spaces grow to 64 MB each.
    expect(kept).toBeGreaterThan(64);
    // isolated-vm sizes the young generation of a 128 MB isolate at 2 MB.
    expect(reset).toBeLessThan(32);
  });
});
