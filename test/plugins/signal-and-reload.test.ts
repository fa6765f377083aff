import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, InlineSandbox, ProcessSandbox } from '@toolhost/host/internal';
import type { CallRequest } from '@toolhost/plugin-sdk/protocol';
import { describe, expect, it } from 'vitest';
import { useHosts } from './project.js';

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('ctx.signal of a plugin call', () => {
  const h = useHosts();

  it.each(['inline', 'process'] as const)(
    'aborts inside the isolate when the caller cancels (%s)',
    async (sandbox) => {
      const made = await h.project(['waits']);
      const host = await h.hostFor(made.root, { sandbox });
      const seen = deferred<string>();
      const controller = new AbortController();
      const pending = host.session().call('wait_for_abort', {}, 't1', {
        signal: controller.signal,
        observer: {
          log: (_level, message) => {
            // Cancel once the executor is really running inside the isolate.
            if (message === 'started') controller.abort(new Error('user pressed stop'));
            else seen.resolve(message);
          },
        },
      });
      const outcome = await pending;
      expect(outcome.status).toBe('cancelled');
      expect(await seen.promise).toMatch(/^aborted: .*user pressed stop/);
    },
  );

  it('aborts inside the isolate when the host time limit ends the call', async () => {
    const made = await h.project(['waits']);
    const host = await h.hostFor(made.root, { limits: { timeoutMs: 300 } });
    const seen = deferred<string>();
    const outcome = await host.session().call('wait_for_abort', {}, 't1', {
      observer: { log: (_level, message) => message.startsWith('aborted') && seen.resolve(message) },
    });
    expect(outcome.status).toBe('timeout');
    expect(await seen.promise).toMatch(/^aborted: .*timed out after 300 ms/);
  });
});

describe('a plugin call cancelled in the executor process', () => {
  it('never runs when cancelled while the executor makes its isolate', async () => {
    const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins/counter');
    const built = await bundlePlugin(path.join(fixture, 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const sandbox = new ProcessSandbox();
    const request = (callId: string): CallRequest => ({
      callId,
      toolName: 'counter_next',
      toolUseId: 't',
      sessionId: 's',
      input: {},
      config: null,
      env: {},
      envGranted: [],
      maxReplyChars: 10_000,
    });
    const sinks = { log: () => {}, progress: () => {} };
    try {
      const version = sandbox.load('counter', built.code, DEFAULT_SANDBOX_LIMITS);
      const controller = new AbortController();
      const cancelled = sandbox.call(
        'counter',
        version,
        request('c1'),
        async () => ({}),
        sinks,
        controller.signal,
      );
      // Sent already: the abort frame follows the call to the executor, whose isolate is still to be made.
      controller.abort(new Error('user pressed stop'));
      expect(await cancelled).toEqual({
        kind: 'limit',
        limit: 'cancelled',
        message: 'the call was cancelled before it started',
      });
      // The isolate counts its calls: the next call is its first.
      const next = await sandbox.call(
        'counter',
        version,
        request('c2'),
        async () => ({}),
        sinks,
        new AbortController().signal,
      );
      expect(next).toMatchObject({
        kind: 'reply',
        reply: { kind: 'ok', result: { content: [{ text: '1' }] } },
      });
    } finally {
      await sandbox.close();
    }
  });
});

describe('reloading a plugin while a call is in flight', () => {
  it('finishes the call on the old isolate, serves new calls on the new one, then disposes the old', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-drain-'));
    const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins/waits');
    await cp(fixture, path.join(root, 'waits'), { recursive: true });
    const sandbox = new InlineSandbox();
    try {
      const built = await bundlePlugin(path.join(root, 'waits', 'index.ts'));
      if (!built.ok) throw new Error(built.error);
      // A second generation of the plugin: the same code answering "v2".
      const v2Bundle = built.code.replace('"v1"', '"v2"');
      expect(v2Bundle).not.toBe(built.code);
      const request = (version: string): CallRequest => ({
        callId: `call-${version}`,
        toolName: 'wait_for_host',
        toolUseId: 't',
        sessionId: 's',
        input: {},
        config: null,
        env: {},
        envGranted: [],
        maxReplyChars: 10_000,
      });
      const sinks = { log: () => {}, progress: () => {} };
      const hold = deferred<unknown>();
      const asked = deferred();
      const v1 = sandbox.load('waits', built.code, DEFAULT_SANDBOX_LIMITS);
      const first = sandbox.call(
        'waits',
        v1,
        request('v1'),
        () => {
          asked.resolve();
          return hold.promise;
        },
        sinks,
        new AbortController().signal,
      );
      await asked.promise;
      const v2 = sandbox.load('waits', v2Bundle, DEFAULT_SANDBOX_LIMITS);
      // The host lets go of v1 once no Map that holds it can start a call: here, at once.
      sandbox.unload('waits', v1);
      const second = await sandbox.call(
        'waits',
        v2,
        request('v2'),
        async () => ({}),
        sinks,
        new AbortController().signal,
      );
      expect(second).toMatchObject({
        kind: 'reply',
        reply: { kind: 'ok', result: { content: [{ text: 'v2' }] } },
      });
      expect(await sandbox.isolateCount()).toBe(2);
      hold.resolve({});
      expect(await first).toMatchObject({
        kind: 'reply',
        reply: { kind: 'ok', result: { content: [{ text: 'v1' }] } },
      });
      expect(await sandbox.isolateCount()).toBe(1);
    } finally {
      await sandbox.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
