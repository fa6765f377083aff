import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS, type ToolHost } from '@toolhost/host';
import { internalsOf, ProcessSandbox } from '@toolhost/host/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { latchServer } from './latch.js';
import { hostFor, project, textOf, useHosts } from './project.js';

const executors = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/executors');

/** An innocent plugin: `<id>_held` waits on the latch, `<id>_echo` asks the server for its own tag. */
function taggedSource(id: string, port: number): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: '${id}',
  permissions: { net: ['127.0.0.1:${port}'] },
  tools: [
    defineTool({
      name: '${id}_held',
      description: 'Answers its tag once the latch opens',
      input: z.object({ tag: z.string() }),
      execute: async ({ tag }, ctx) => {
        await ctx.fetch('http://127.0.0.1:${port}/hold');
        return tag;
      },
    }),
    defineTool({
      name: '${id}_echo',
      description: 'Answers its tag, as the host fetched it back',
      input: z.object({ tag: z.string() }),
      execute: async ({ tag }, ctx) => (await ctx.fetch('http://127.0.0.1:${port}/echo/' + tag)).text(),
    }),
  ],
});
`;
}

async function crashProject() {
  const server = await latchServer();
  const made = await project(['crasher']);
  const grants = { net: [`127.0.0.1:${server.port}`] };
  for (const id of ['tag', 'by_a', 'by_b']) {
    await mkdir(path.join(made.root, 'plugins', id));
    await writeFile(path.join(made.root, 'plugins', id, 'index.ts'), taggedSource(id, server.port));
  }
  const host = await hostFor(made.root, {
    sandbox: 'process',
    plugins: {
      // Generous: on a busy machine the crash may take a while to come.
      crasher: { limits: { memoryMb: 16, timeoutMs: 60_000, cpuMs: 60_000 } },
      tag: { grants },
      by_a: { grants },
      by_b: { grants },
    },
  });
  return {
    host,
    server,
    sandbox: internalsOf(host).sandbox as ProcessSandbox,
    async close() {
      server.open();
      await host.close();
      await server.close();
      await made.cleanup();
    },
  };
}

/** `n` calls of `tag_echo`, each in its own session, tagged `<prefix><i>`. */
function echoes(host: ToolHost, prefix: string, n: number) {
  return Array.from({ length: n }, (_, i) => host.session().call('tag_echo', { tag: `${prefix}${i}` }));
}

describe('an executor process that dies under concurrent callers', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('fails exactly the calls running there, naming the crash, and serves the calls after it', async () => {
    const made = await crashProject();
    close = made.close;
    const { host, server, sandbox } = made;
    const RUNNING = 8;
    const running = Array.from({ length: RUNNING }, (_, i) =>
      host.session().call('tag_held', { tag: `running${i}` }),
    );
    await server.arrived.reached(RUNNING);
    const generation = sandbox.generation;

    const crash = await host.session().call('crash_keys', {});
    const died =
      /^Tool "\w+" of plugin "\w+" was stopped: the executor process died \(signal SIGABRT\) while this call was running \(plugins running there: /;
    expect(textOf(crash.result)).toMatch(died);
    for (const outcome of await Promise.all(running)) {
      expect(outcome.result.isError).toBe(true);
      expect(textOf(outcome.result)).toMatch(died);
    }

    const after = await Promise.all(echoes(host, 'after', 16));
    expect(after.map((o) => textOf(o.result))).toEqual(Array.from({ length: 16 }, (_, i) => `after${i}`));
    expect(sandbox.generation).toBe(generation + 1);
    // Two plugins were running: neither is blamed.
    expect(host.plugins.every((p) => p.status === 'loaded')).toBe(true);
  });

  it('sends calls made while it is down to the new process; the old one’s exit never fails them', async () => {
    const made = await crashProject();
    close = made.close;
    const { host, server, sandbox } = made;
    const RUNNING = 4;
    const running = Array.from({ length: RUNNING }, (_, i) =>
      host.session().call('tag_held', { tag: `running${i}` }),
    );
    await server.arrived.reached(RUNNING);
    const generation = sandbox.generation;

    process.kill(sandbox.executorPid ?? 0, 'SIGKILL');
    // Made in the same turn: the host has not seen the death yet and sends them to the dead process.
    const late = echoes(host, 'late', 32);

    for (const outcome of await Promise.all(running)) {
      expect(textOf(outcome.result)).toMatch(
        /the executor process died \(signal SIGKILL\) while this call was running; the next call starts a new one/,
      );
    }
    const answers = (await Promise.all(late)).map((o) => textOf(o.result));
    expect(answers).toEqual(Array.from({ length: 32 }, (_, i) => `late${i}`));
    expect(sandbox.generation).toBe(generation + 1);
  });

  it('gives every call exactly its own answer or a crash error across repeated kills', async () => {
    const made = await crashProject();
    close = made.close;
    const { host, server, sandbox } = made;
    const ROUNDS = 4;
    const PER_ROUND = 50;
    const outcomes: { tag: string; text: string; isError: boolean }[] = [];
    const bystanders: Promise<unknown>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Two other plugins always running there, so no kill is charged to one plugin (a fourth
      // would quarantine it): this test is about answers, not blame.
      bystanders.push(
        host.session().call('by_a_held', { tag: 'a' }),
        host.session().call('by_b_held', { tag: 'b' }),
      );
      await server.arrived.reached(2 * (round + 1));
      const calls = echoes(host, `r${round}-`, PER_ROUND).map(async (call, i) => {
        const outcome = await call;
        outcomes.push({
          tag: `r${round}-${i}`,
          text: textOf(outcome.result),
          isError: outcome.result.isError === true,
        });
      });
      // Kill it while these calls are in every state: queued, running, waiting on the host.
      await new Promise((resolve) => setImmediate(resolve));
      process.kill(sandbox.executorPid ?? 0, 'SIGKILL');
      await Promise.all(calls);
    }
    for (const outcome of (await Promise.all(bystanders)) as { result: { isError?: boolean } }[])
      expect(outcome.result.isError).toBe(true);
    expect(outcomes).toHaveLength(ROUNDS * PER_ROUND);
    expect(new Set(outcomes.map((o) => o.tag)).size).toBe(ROUNDS * PER_ROUND);
    for (const o of outcomes) {
      if (o.isError)
        expect(o.text).toMatch(/the executor process died \(signal SIGKILL\) while this call was running/);
      else expect(o.text).toBe(o.tag);
    }
    // One new process per kill, never more. (Whether the last kill left calls to resend, and so
    // started the fifth process already, depends on how far the channel got: a call settles it.)
    const last = await host.session().call('tag_echo', { tag: 'last' });
    expect(textOf(last.result)).toBe('last');
    expect(sandbox.generation).toBe(ROUNDS + 1);
  });
});

describe('an executor process that does not come up', () => {
  const request = {
    callId: 'c',
    toolName: 't',
    toolUseId: 'u',
    sessionId: 's',
    input: {},
    config: null,
    env: {},
    envGranted: [],
    maxReplyChars: 1000,
  };
  const sinks = { log: () => {}, progress: () => {} };
  let sandbox: ProcessSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
  });

  it.each([
    ['never-ready.mjs', 300, /^the executor process could not start: it did not start within 300 ms$/],
    [
      'exits-at-start.mjs',
      10_000,
      /^the executor process could not start: it ended \(exit code 3\) before it was ready$/,
    ],
  ] as const)(
    'fails the waiting calls with a clear error (%s), and tries a new process for the next call',
    async (entry, startupTimeoutMs, message) => {
      sandbox = new ProcessSandbox({ entry: path.join(executors, entry), startupTimeoutMs });
      const version = sandbox.load('p', 'bundle', DEFAULT_SANDBOX_LIMITS);
      const call = () =>
        sandbox?.call('p', version, request, async () => null, sinks, new AbortController().signal);
      const outcomes = await Promise.all([call(), call()]);
      for (const outcome of outcomes)
        expect(outcome).toMatchObject({
          kind: 'limit',
          limit: 'crashed',
          message: expect.stringMatching(message),
        });
      expect(sandbox.generation).toBe(1);
      expect(await call()).toMatchObject({ kind: 'limit', message: expect.stringMatching(message) });
      expect(sandbox.generation).toBe(2);
    },
  );

  it('fails a call it read before saying it was ready, rather than leaving it waiting', async () => {
    sandbox = new ProcessSandbox({ entry: path.join(executors, 'dies-before-ready.mjs') });
    const version = sandbox.load('p', 'bundle', DEFAULT_SANDBOX_LIMITS);
    const outcome = await sandbox.call(
      'p',
      version,
      request,
      async () => null,
      sinks,
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({
      kind: 'limit',
      limit: 'crashed',
      message: 'the executor process died (exit code 9) while this call was running',
    });
  });
});

describe('a crash inside a sync entry', () => {
  const h = useHosts();

  it('ends the executor at once (no hang), fails only that call, and is not sent again', async () => {
    const made = await h.project(['synccrasher']);
    const host = await h.hostFor(made.root, {
      sandbox: 'process',
      plugins: { synccrasher: { limits: { memoryMb: 16, timeoutMs: 60_000, cpuMs: 60_000 } } },
    });
    const session = host.session();
    const sandbox = internalsOf(host).sandbox as ProcessSandbox;
    // Quick calls first: the tool goes to sync entries, which run on the executor's main thread.
    // (With a catastrophic-error handler there, the abort would wait for that thread forever;
    // the call would end only at its 60 s limit.)
    for (let i = 0; i < 5; i++)
      expect(textOf((await session.call('crash_when', { crash: false })).result)).toBe('quick');
    const generation = sandbox.generation;
    const crash = await session.call('crash_when', { crash: true });
    expect(textOf(crash.result)).toMatch(
      /^Tool "crash_when" of plugin "synccrasher" was stopped: the executor process died \(signal SIGABRT\) while this call was running; /,
    );
    expect(textOf((await session.call('crash_when', { crash: false })).result)).toBe('quick');
    // One new process for the call after it: the crashing call was not sent to a second one.
    expect(sandbox.generation).toBe(generation + 1);
  });
});
