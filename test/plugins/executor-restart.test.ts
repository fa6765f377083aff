import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, ProcessSandbox } from '@toolhost/host/internal';
import type { CallReply, CallRequest } from '@toolhost/plugin-sdk/protocol';
import { afterEach, describe, expect, it } from 'vitest';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins');

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const request = (callId: string): CallRequest => ({
  callId,
  toolName: 'ask',
  toolUseId: 't',
  sessionId: 's',
  input: {},
  config: null,
  env: {},
  envGranted: [],
  maxReplyChars: 10_000,
});
const sinks = { log: () => {}, progress: () => {} };

/** A capability runner the test answers by hand, and a promise of its first request. */
function heldRunner() {
  const asked = deferred<void>();
  const answer = deferred<unknown>();
  return {
    asked: asked.promise,
    answer: answer.resolve,
    run: () => {
      asked.resolve();
      return answer.promise;
    },
  };
}

describe('the executor process restarting under calls', () => {
  let sandbox: ProcessSandbox;
  afterEach(async () => {
    await sandbox.close();
  });

  it("never hands one plugin's late capability answer to another plugin in the new executor", async () => {
    sandbox = new ProcessSandbox();
    const built = await bundlePlugin(path.join(fixtures, 'asker', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const va = sandbox.load('a', built.code, DEFAULT_SANDBOX_LIMITS);
    const vb = sandbox.load('b', built.code, DEFAULT_SANDBOX_LIMITS);

    const a = heldRunner();
    const callA = sandbox.call('a', va, request('call-a'), a.run, sinks, new AbortController().signal);
    await a.asked;
    process.kill(sandbox.executorPid ?? 0, 'SIGKILL');
    expect(await callA).toMatchObject({ kind: 'limit', limit: 'crashed' });

    const b = heldRunner();
    const callB = sandbox.call('b', vb, request('call-b'), b.run, sinks, new AbortController().signal);
    await b.asked; // b's request in the new executor has the same request id a's had
    a.answer('SECRET-OF-A'); // the stale answer arrives first
    b.answer('mine');
    const reply = (await callB) as { kind: 'reply'; reply: CallReply };
    expect(reply.reply).toEqual({ kind: 'ok', result: { content: [{ type: 'text', text: 'got: mine' }] } });
  });

  it('charges no crash to plugins that were only running beside one another', async () => {
    sandbox = new ProcessSandbox();
    const charged: string[] = [];
    sandbox.onCrash((crash) => charged.push(crash.pluginId));
    const built = await bundlePlugin(path.join(fixtures, 'asker', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const va = sandbox.load('a', built.code, DEFAULT_SANDBOX_LIMITS);
    const vb = sandbox.load('b', built.code, DEFAULT_SANDBOX_LIMITS);
    for (let i = 0; i < 3; i++) {
      const a = heldRunner();
      const b = heldRunner();
      const calls = [
        sandbox.call('a', va, request(`a${i}`), a.run, sinks, new AbortController().signal),
        sandbox.call('b', vb, request(`b${i}`), b.run, sinks, new AbortController().signal),
      ];
      await Promise.all([a.asked, b.asked]);
      process.kill(sandbox.executorPid ?? 0, 'SIGKILL');
      for (const outcome of await Promise.all(calls)) expect(outcome).toMatchObject({ limit: 'crashed' });
    }
    const after = heldRunner();
    const next = sandbox.call('a', va, request('after'), after.run, sinks, new AbortController().signal);
    await after.asked;
    after.answer('fine');
    expect(await next).toMatchObject({ kind: 'reply', reply: { kind: 'ok' } });
    expect(charged).toEqual([]);
  });

  it('charges a death to the one plugin running there, with its version', async () => {
    sandbox = new ProcessSandbox();
    const charged: unknown[] = [];
    sandbox.onCrash((crash) => charged.push(crash));
    const built = await bundlePlugin(path.join(fixtures, 'asker', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const version = sandbox.load('a', built.code, DEFAULT_SANDBOX_LIMITS);
    const a = heldRunner();
    const call = sandbox.call('a', version, request('a'), a.run, sinks, new AbortController().signal);
    await a.asked;
    process.kill(sandbox.executorPid ?? 0, 'SIGKILL');
    expect(await call).toMatchObject({ kind: 'limit', limit: 'crashed' });
    expect(charged).toEqual([
      {
        pluginId: 'a',
        version,
        message: 'the executor process died (signal SIGKILL) while it was running',
      },
    ]);
  });
});
