/**
 * Code mode with `sandbox: 'process'`: a script's isolate lives in the executor process, not in
 * the host. A script that makes V8 abort ends only the executor, its run gets an `is_error`
 * result naming the memory limit, and the host (other tools, the next run_code) keeps serving;
 * every tool call still comes back through the session's wrapper; cancelling the run cancels its
 * tool calls; a run in flight keeps the executor from being retired as idle; and a script's crash
 * is never charged to a plugin.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, DEFAULT_SANDBOX_LIMITS, resultText, type ToolHost } from '@toolhost/host';
import {
  bundlePlugin,
  type CodeRunOptions,
  internalsOf,
  liveScriptIsolates,
  ProcessSandbox,
  type SandboxCrash,
} from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import type { CallRequest } from '@toolhost/plugin-sdk/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';

/** vi.waitFor gives up after 1 s by default: a loaded machine (two test files at once) can take longer. */
const WAIT = { timeout: 60_000, interval: 20 };

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins');

/**
 * The out-of-memory case of isolated-vm #457 (test/fixtures/plugins/crasher): V8 aborts the whole
 * process holding the isolate instead of failing the isolate. Quick at a 16 MB heap.
 */
const CRASH_KEYS = `const obj = {};
for (let i = 0; i < 1_000_000; i++) obj['a' + i] = 'WKEGJLWBEGJLWENGLKWENLKGNWELKGNWKLEGNLKWENGLWENGKLWENKLG';
return Object.keys(obj).length;`;

const LIMITS = {
  ...DEFAULT_SANDBOX_LIMITS,
  memoryMb: 16,
  maxLogChars: 1_000,
  maxToolCalls: 10,
  maxSourceChars: 100_000,
};

/** Where the isolate of the script that called `probe` lived: counted by the executor, and here. */
interface Placement {
  readonly executor: number;
  readonly host: number;
}

let host: ToolHost | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await host?.close();
  host = undefined;
});

async function start(extra: Parameters<typeof defineTool>[0][] = []): Promise<ToolHost> {
  host = await createHost({
    configFile: false,
    pluginsDir: false,
    builtins: false,
    sandbox: 'process',
    availability: { env: {} },
    limits: { codeMode: { memoryMb: 16 } },
  });
  const h = host;
  h.addTool(
    defineTool({
      name: 'echo',
      description: 'Echoes a text',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => `echo:${text}`,
    }),
  );
  for (const definition of extra) h.addTool(defineTool(definition));
  return h;
}

/** A tool that says where the isolate of the script calling it lives (script isolates counted now). */
function probeTool(seen: Placement[]) {
  return {
    name: 'probe',
    description: 'Says where scripts run',
    input: z.object({}),
    execute: async () => {
      const placement = { executor: (await host?.isolates())?.scripts ?? -1, host: liveScriptIsolates() };
      seen.push(placement);
      return { content: [], structuredContent: placement };
    },
  };
}

describe('run_code in the executor process', () => {
  it('a script that makes V8 abort ends only the executor: a memory-limit error, and the host keeps serving', async () => {
    const h = await start();
    const session = h.session({ codeMode: true });
    const crashed = (await session.call('run_code', { code: CRASH_KEYS })).result;
    expect(crashed.isError).toBe(true);
    expect(resultText(crashed)).toMatch(
      /memory limit \(memoryMb: 16; raise limits\.codeMode\.memoryMb.*V8 ended the executor process that held it \(signal SIGABRT\)/,
    );
    // This process (the host) is still here: other tools and the next script run.
    expect(resultText((await h.session().call('echo', { text: 'direct' })).result)).toBe('echo:direct');
    const next = (await session.call('run_code', { code: `return await tools.echo({ text: 'again' });` }))
      .result;
    expect(resultText(next)).toContain('"echo:again"');
    // ...in a new executor process: the first one was the one that died.
    expect((internalsOf(h).sandbox as ProcessSandbox).generation).toBe(2);
  });

  it('a script that allocates until its isolate dies gets a memory-limit error; its isolate was in the executor', async () => {
    const seen: Placement[] = [];
    const h = await start([probeTool(seen)]);
    const result = (
      await h.session({ codeMode: true }).call('run_code', {
        code: `await tools.probe({});
         const hoard = []; for (let i = 0; ; i++) hoard.push(new Array(100_000).fill(i));`,
      })
    ).result;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/memory limit \(memoryMb: 16; raise limits\.codeMode\.memoryMb/);
    // While the script waited on probe, the executor held its isolate and this process held none.
    expect(seen).toEqual([{ executor: 1, host: 0 }]);
    expect((await h.isolates()).scripts).toBe(0);
    expect(resultText((await h.session().call('echo', { text: 'after' })).result)).toBe('echo:after');
  });

  it("a script's tool calls go through host hooks, session hooks and policy", async () => {
    const seen: Placement[] = [];
    host = await createHost({
      configFile: false,
      pluginsDir: false,
      builtins: false,
      sandbox: 'process',
      availability: { env: {} },
      tools: { deny: ['deploy_production'] },
    });
    const h = host;
    h.addTool(defineTool(probeTool(seen)));
    h.addTool(
      defineTool({
        name: 'deploy_production',
        description: 'Deploy',
        input: z.object({}),
        execute: () => 'deployed',
      }),
    );
    h.addTool(
      defineTool({
        name: 'post',
        description: 'Posts a text',
        input: z.object({ text: z.string() }),
        execute: ({ text }) => `posted ${text}`,
      }),
    );
    const after: string[] = [];
    h.addHooks({
      name: 'audit',
      afterToolCall: (event) => {
        after.push(event.descriptor.name);
        return undefined;
      },
    });
    const session = h.session({ codeMode: true });
    session.addHooks({
      name: 'guard',
      beforeToolCall: (event) =>
        event.descriptor.name === 'post' ? { input: { text: 'rewritten' } } : undefined,
    });
    const result = (
      await session.call('run_code', {
        code: `const where = await tools.probe({});
         let denied; try { await tools.deploy_production({}); } catch (e) { denied = e.message; }
         return { where, denied, posted: await tools.post({ text: 'original' }) };`,
      })
    ).result;
    const text = resultText(result);
    expect(result.isError).not.toBe(true);
    expect(seen).toEqual([{ executor: 1, host: 0 }]);
    expect(text).toMatch(/Tool \\"deploy_production\\" is not available: policy-denied/);
    expect(text).toContain('"posted": "posted rewritten"');
    expect(after).toEqual(['probe', 'post', 'run_code']);
  });

  it('cancelling run_code while a tool call is in flight ends the run and that call', async () => {
    const seen: Placement[] = [];
    let entered!: () => void;
    const inHold = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let holdSignal: AbortSignal | undefined;
    const h = await start([
      probeTool(seen),
      {
        name: 'hold',
        description: 'Waits until cancelled',
        input: z.object({}),
        execute: (_input, ctx) =>
          new Promise<string>((resolve) => {
            holdSignal = ctx.signal as AbortSignal;
            holdSignal.addEventListener('abort', () => resolve('released'));
            entered();
          }),
      },
    ]);
    const controller = new AbortController();
    const running = h
      .session({ codeMode: true })
      .call(
        'run_code',
        { code: `await tools.probe({}); await tools.hold({}); return 'finished';` },
        undefined,
        { signal: controller.signal },
      );
    await inHold;
    controller.abort('the user left');
    const { result } = await running;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/cancelled/);
    expect(holdSignal?.aborted).toBe(true);
    expect(seen).toEqual([{ executor: 1, host: 0 }]);
    // The executor disposes of the script's isolate (the wrapper answers a cancelled call at once,
    // without waiting for that) and keeps serving.
    await vi.waitFor(async () => expect((await h.isolates()).scripts).toBe(0), WAIT);
    expect((internalsOf(h).sandbox as ProcessSandbox).generation).toBe(1);
    const next = await h.session({ codeMode: true }).call('run_code', { code: 'return 1 + 1;' });
    expect(resultText(next.result)).toContain('2');
  });
});

describe('a ProcessSandbox running a script', () => {
  let sandbox: ProcessSandbox | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await sandbox?.close();
    sandbox = undefined;
  });

  it('is not retired as idle while a run is in flight, and is once it has ended', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = new ProcessSandbox({ isolates: { idleMs: 50, maxLive: 10 } });
    sandbox = s;
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let answer!: (json: string) => void;
    const options: CodeRunOptions = {
      limits: { ...LIMITS, timeoutMs: 60_000 },
      callTool: () =>
        new Promise((resolve) => {
          answer = (json) => resolve({ ok: true, json });
          entered();
        }),
    };
    const run = s.runScript(`return (await tools.wait({})) + 1;`, options);
    await inTool;
    const pid = s.pid;
    // The run is the executor's only work: no retirement is even scheduled while it waits on the host.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    answer('41');
    expect(await run).toMatchObject({ kind: 'returned', value: 42 });
    expect(s.pid).toBe(pid);
    expect(s.generation).toBe(1);
    // Idle now: it is retired after idleMs, as without scripts.
    vi.advanceTimersByTime(50);
    await vi.waitFor(() => expect(s.pid).toBeUndefined(), WAIT);
  });

  it("charges an executor death while a script runs to no plugin, and says so to the plugin's call", async () => {
    const built = await bundlePlugin(path.join(fixtures, 'waits', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const s = new ProcessSandbox();
    sandbox = s;
    const crashes: SandboxCrash[] = [];
    s.onCrash((crash) => crashes.push(crash));
    const version = s.load('waits', built.code, { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 60_000 });
    let started!: () => void;
    const inPlugin = new Promise<void>((resolve) => {
      started = resolve;
    });
    const request: CallRequest = {
      callId: 'held',
      toolName: 'wait_for_abort',
      toolUseId: 'u',
      sessionId: 's',
      input: {},
      config: null,
      env: {},
      envGranted: [],
      maxReplyChars: 10_000,
    };
    const call = s.call(
      'waits',
      version,
      request,
      async () => null,
      { log: (_level, message) => message === 'started' && started(), progress: () => {} },
      new AbortController().signal,
    );
    await inPlugin;
    const run = await s.runScript(CRASH_KEYS, {
      limits: LIMITS,
      callTool: async () => ({ ok: true, json: 'null' }),
    });
    expect(run).toMatchObject({ kind: 'limit', limit: 'memoryMb' });
    const outcome = await call;
    expect(outcome).toMatchObject({ kind: 'limit', limit: 'crashed' });
    expect(outcome.kind === 'limit' ? outcome.message : '').toMatch(
      /a run_code script was running there too/,
    );
    // The plugin was the only plugin running there, but not the only code: it is not blamed.
    expect(crashes).toEqual([]);
  });
});
