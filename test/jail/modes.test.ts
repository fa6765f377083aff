import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, project, REPO } from '../cli/cli.js';

const HOST = pathToFileURL(path.join(REPO, 'packages/host/dist/index.js')).href;

/**
 * Runs createHost in a fresh Node with `sandbox` and `PATH` (no PATH entry with bwrap: a machine
 * without bubblewrap), calls a plugin tool, and says what came of it.
 */
function run(root: string, sandbox: unknown, envPath: string | undefined) {
  const script = `
    const { createHost } = await import(${JSON.stringify(HOST)});
    try {
      const host = await createHost({ root: ${JSON.stringify(root)}, watch: false, cache: false, sandbox: ${JSON.stringify(sandbox)} });
      const call = await host.session().call('healthy_echo', { text: 'x' });
      console.log(JSON.stringify({ walls: host.walls, text: call.result.content[0].text }));
      await host.close();
    } catch (error) {
      console.log(JSON.stringify({ error: error.code, message: error.message }));
    }`;
  const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], {
    env: cleanEnv({ PATH: envPath }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  const last = child.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`no result: ${child.stdout}\n${child.stderr}`);
  }
}

describe('sandbox.jail', () => {
  let root: string;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ root, dispose } = await project(['healthy'], { builtins: false }));
  });
  afterAll(() => dispose());
  const noBwrap = '/nonexistent-bin';

  it("'required' refuses to start where no jail can be made, saying why and what to do", () => {
    const outcome = run(root, { jail: 'required' }, noBwrap);
    expect(outcome.error).toBe('jail-unavailable');
    expect(outcome.message).toMatch(
      /^sandbox\.jail is 'required', and bubblewrap \(bwrap\) is not installed: install it \(Debian\/Ubuntu: apt-get install bubblewrap\)\. Plugin code, exec and stdio MCP servers will not run unjailed/,
    );
  });

  it("'auto' (the default) runs unjailed where no jail can be made, and says so", () => {
    const outcome = run(root, 'process', noBwrap);
    expect(outcome.text).toBe('echo: x');
    expect(outcome.walls).toEqual({
      isolate: true,
      jail: {
        up: false,
        reason: 'bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap)',
      },
    });
  });

  it("'auto' jails where it can", () => {
    const outcome = run(root, { jail: 'auto' }, process.env.PATH);
    expect(outcome.walls).toEqual({ isolate: true, jail: { up: true, kind: 'bubblewrap', seccomp: true } });
    expect(outcome.text).toBe('echo: x');
  });

  it("'off' is said plainly, and 'inline' has one wall", () => {
    expect(run(root, { jail: 'off' }, process.env.PATH).walls).toEqual({
      isolate: true,
      jail: { up: false, reason: "sandbox.jail is 'off'" },
    });
    const inline = run(root, 'inline', process.env.PATH);
    expect(inline.text).toBe('echo: x');
    expect(inline.walls).toEqual({
      isolate: true,
      jail: {
        up: false,
        reason: "sandbox is 'inline': isolates run in the host process, behind one wall (the isolate)",
      },
    });
  });

  it("'auto' where no jail can be made runs exec and stdio servers unjailed and says why; 'required' starts nothing", () => {
    const script = `
      const { createHost } = await import(${JSON.stringify(HOST)});
      const host = await createHost({
        root: ${JSON.stringify(root)}, watch: false, cache: false,
        builtins: { exec: { enabled: true } },
        mcpServers: { s: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
        mcp: { connectTimeoutMs: 200 },
      });
      const call = await host.session().call('exec', { command: process.execPath, args: ['-e', 'console.log(process.env.TOOLHOST_MODES_CANARY)'] });
      console.log(JSON.stringify({ jail: host.mcpServers[0].jail, out: call.result.structuredContent.stdout }));
      await host.close();`;
    const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], {
      env: cleanEnv({ PATH: noBwrap, TOOLHOST_MODES_CANARY: 'seen' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    const outcome = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(outcome.jail).toEqual({
      jailed: false,
      reason: 'bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap)',
      optedOut: false,
    });
    // Unjailed, exec keeps the host's environment (as before the jail): said, not hidden.
    expect(outcome.out).toBe('seen\n');
    const required = run(root, { jail: 'required' }, noBwrap);
    expect(required.error).toBe('jail-unavailable');
    expect(required.message).toMatch(/Plugin code, exec and stdio MCP servers will not run unjailed/);
  });
});
