/**
 * An inline sandbox warmed as serving begins (`InlineSandbox.warm`, from serve/warm.ts): the
 * first plugin call finds its isolate made, as the executor process does for the process sandbox.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/config/limits.js';
import { InlineSandbox } from '../../src/sandbox/inline.js';
import { loadPrelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { callRequest } from './call-request.js';

const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/plugins/counter/index.ts',
);
const noSinks = { log: () => {}, progress: () => {} };
const noCapabilities = async () => null;

describe('warming an inline sandbox', () => {
  let sandbox: InlineSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
  });

  it('makes an isolate for the first call ahead, which that call takes', async () => {
    const built = await bundlePlugin(fixture);
    if (!built.ok) throw new Error(built.error);
    sandbox = new InlineSandbox();
    const version = sandbox.load('counter', built.code, DEFAULT_SANDBOX_LIMITS);
    // Told of a plugin, and nothing more: nothing is made (a host that never serves never calls).
    expect(sandbox.spares()).toEqual({ held: false, served: 0, missed: 0 });
    sandbox.warm();
    await vi.waitFor(() => expect(sandbox?.spares().held).toBe(true), { timeout: 20_000, interval: 5 });
    const outcome = await sandbox.call(
      'counter',
      version,
      callRequest(1, 'counter_next', {}),
      noCapabilities,
      noSinks,
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ kind: 'reply', reply: { kind: 'ok' } });
    expect(sandbox.spares()).toMatchObject({ served: 1, missed: 0 });
  });

  it('warms nothing when no plugin is loaded', async () => {
    const built = await bundlePlugin(fixture);
    if (!built.ok) throw new Error(built.error);
    sandbox = new InlineSandbox();
    sandbox.warm();
    // A spare made ahead would be made once the prelude is there, and before this resumes.
    await loadPrelude(built.code);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(sandbox.spares()).toEqual({ held: false, served: 0, missed: 0 });
  });
});
