import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEXT_REPLY_MARK } from '@toolhost/plugin-sdk/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/config/limits.js';
import { IsolatePool } from '../../src/sandbox/isolate-pool.js';
import { loadPrelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { callRequest } from './call-request.js';

const healthy = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/plugins/healthy/index.ts',
);

const handlers = {
  log: () => {},
  progress: () => {},
  request: async () => JSON.stringify({ ok: false, error: 'no capabilities here' }),
};

/**
 * The executor process replies in the same turn to a call answered within its sync entry (no
 * promise, no microtask): the pool must hand such an answer back as a value, not a promise.
 */
describe('an isolate pool', () => {
  const pool = new IsolatePool(loadPrelude);
  afterAll(() => pool.close());

  it('answers a quick tool at once, not as a promise, once its calls take sync entries', async () => {
    const built = await bundlePlugin(healthy);
    if (!built.ok) throw new Error(built.error);
    pool.load('healthy@1', built.code, DEFAULT_SANDBOX_LIMITS);
    const request = (i: number) => JSON.stringify(callRequest(i, 'healthy_echo', { text: `${i}` }));
    const kinds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const answer = pool.text('call', 'healthy@1', 'healthy_echo', `c${i}`, request(i), handlers);
      kinds.push(answer instanceof Promise ? 'promise' : 'value');
      const outcome = await answer;
      expect(outcome).toEqual({
        kind: 'reply',
        reply: `${TEXT_REPLY_MARK}echo: ${i}`,
      });
    }
    // The first call creates the isolate and enters async; a quick tool is then entered sync.
    expect(kinds[0]).toBe('promise');
    expect(kinds.slice(-5)).toEqual(['value', 'value', 'value', 'value', 'value']);
  });
});
