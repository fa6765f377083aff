import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, ProcessSandbox } from '@toolhost/host/internal';
import type { CallRequest } from '@toolhost/plugin-sdk/protocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../fixtures/plugins');
const executors = path.resolve(here, '../fixtures/executors');

const request = (toolName: string, input: unknown, maxReplyChars = 100_000): CallRequest => ({
  callId: `${toolName}-${Math.random()}`,
  toolName,
  toolUseId: 'u',
  sessionId: 's',
  input,
  config: null,
  env: {},
  envGranted: [],
  maxReplyChars,
});
const noSinks = { log: () => {}, progress: () => {} };
const noCapabilities = async () => null;
const signal = () => new AbortController().signal;

describe('the executor channel carrying real calls', () => {
  let sandbox: ProcessSandbox;
  let version: number;
  beforeAll(async () => {
    const built = await bundlePlugin(path.join(fixtures, 'channel-probe', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    sandbox = new ProcessSandbox();
    version = sandbox.load('probe', built.code, { ...DEFAULT_SANDBOX_LIMITS, maxResultChars: 20_000_000 });
    return () => sandbox.close();
  });

  it('brings a 10 MB reply whole, across many chunks', async () => {
    const size = 10 * 1024 * 1024;
    const outcome = await sandbox.call(
      'probe',
      version,
      request('big', { size }, 20_000_000),
      noCapabilities,
      noSinks,
      signal(),
    );
    expect(outcome.kind).toBe('reply');
    const reply = outcome.kind === 'reply' ? outcome.reply : undefined;
    expect(reply?.kind).toBe('ok');
    const text = reply?.kind === 'ok' ? (reply.result.content[0] as { text: string }).text : '';
    expect(text.length).toBe(size);
    expect(text.slice(0, 12)).toBe('012345678901');
    expect(text.slice(-6)).toBe('456789'); // size is a multiple of 10
  });

  it('gives each of 2,000 calls in flight its own reply, after its own log lines in order', async () => {
    const N = 2_000;
    const heard = Array.from({ length: N }, () => [] as string[]);
    const outcomes = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        sandbox
          .call(
            'probe',
            version,
            request('tagged', { tag: `t${i}` }),
            noCapabilities,
            { log: (_level, message) => heard[i]?.push(message), progress: () => {} },
            signal(),
          )
          .then((outcome) => {
            heard[i]?.push('reply');
            return outcome;
          }),
      ),
    );
    outcomes.forEach((outcome, i) => {
      expect(outcome).toEqual({
        kind: 'reply',
        reply: { kind: 'ok', result: { content: [{ type: 'text', text: `t${i}` }] } },
      });
      expect(heard[i]).toEqual([`t${i}:1`, `t${i}:2`, 'reply']);
    });
  });

  it('runs a plugin hook there, its request and verdict passed through as JSON', async () => {
    const heard: string[] = [];
    const outcome = await sandbox.hook(
      'probe',
      version,
      {
        callId: 'hook-1',
        phase: 'before',
        event: { sessionId: 's', toolUseId: 'u', toolName: 'tagged', input: { tag: 'ü "quoted"' } },
        config: null,
        maxReplyChars: 1_000,
      },
      { log: (_level, message) => heard.push(message), progress: () => {} },
    );
    expect(outcome).toEqual({
      kind: 'reply',
      reply: { kind: 'ok', verdict: { block: true, reason: 'blocked {"tag":"ü \\"quoted\\""}' } },
    });
    expect(heard).toEqual(['before tagged']);
  });
});

describe('an executor that breaks the channel', () => {
  let sandbox: ProcessSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
  });

  const call = (tool: string) =>
    sandbox?.call('p', 1, request(tool, {}), noCapabilities, noSinks, signal()) ?? Promise.reject();

  it('is a crash of that executor: its running call fails, nothing is blamed, the next process serves', async () => {
    sandbox = new ProcessSandbox({ entry: path.join(executors, 'garbage-on-call.mjs') });
    sandbox.load('p', 'bundle', DEFAULT_SANDBOX_LIMITS);
    const crashes: unknown[] = [];
    sandbox.onCrash((crash) => crashes.push(crash));
    expect(await call('first')).toMatchObject({ kind: 'reply' });
    expect(await call('garbage')).toEqual({
      kind: 'limit',
      limit: 'crashed',
      message: expect.stringMatching(
        /^the executor process sent a malformed message \(a frame header says \d+ bytes with a head of \d+\) and was killed while this call was running/,
      ),
    });
    expect(crashes).toEqual([]);
    expect(await call('after')).toEqual({
      kind: 'reply',
      reply: { kind: 'ok', result: { content: [{ type: 'text', text: 'ok: after' }] } },
    });
    expect(sandbox.generation).toBe(2);
  });

  it('is a crash when it dies in the middle of a frame', async () => {
    sandbox = new ProcessSandbox({ entry: path.join(executors, 'garbage-on-call.mjs') });
    sandbox.load('p', 'bundle', DEFAULT_SANDBOX_LIMITS);
    expect(await call('truncated')).toMatchObject({
      kind: 'limit',
      limit: 'crashed',
      message: expect.stringMatching(
        /^the executor process died \(exit code 9\) while this call was running/,
      ),
    });
    expect(await call('after')).toMatchObject({ kind: 'reply' });
    expect(sandbox.generation).toBe(2);
  });
});
