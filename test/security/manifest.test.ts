/**
 * Hostile plugins at load: manifests with getters, cycles, huge texts, proxies; code that never
 * finishes evaluating; forged describe replies. Each must end as a `plugin-load-failed`
 * diagnostic for that plugin only, quickly, while a healthy plugin beside it loads and works.
 */
import { describe, expect, it } from 'vitest';
import {
  attackPlugin,
  expectHealthy,
  expectRealmIntact,
  HEADER,
  HEALTHY_SOURCE,
  SECURITY_SANDBOX,
  SMALL_LIMITS,
  snapshotRealm,
  useHarness,
} from './helpers.js';

describe('hostile manifests and loads', () => {
  const h = useHarness();

  /**
   * Loads `evil` beside `healthy` and checks that only `evil` failed, with a diagnostic. The load
   * must end by itself (its limits stop it; a hang is caught by the test's timeout).
   */
  async function expectLoadFailure(
    source: string,
    message?: RegExp,
    sandbox: 'inline' | 'process' = SECURITY_SANDBOX,
  ) {
    const before = snapshotRealm();
    const { host, session } = await h.start({
      sandbox,
      plugins: { evil: source, healthy: HEALTHY_SOURCE },
      settings: { evil: { limits: { ...SMALL_LIMITS } } },
    });
    const report = host.plugins.find((p) => p.id === 'evil');
    expect(report?.status).toBe('failed');
    if (message !== undefined) expect(report?.diagnostics.join('\n')).toMatch(message);
    const hidden = host.plan().hidden.filter((e) => e.descriptor.owner.kind === 'plugin');
    expect(hidden.length).toBeGreaterThan(0);
    for (const entry of hidden) {
      expect(entry.diagnostics[0]?.reason).toBe('plugin-load-failed');
      expect(entry.diagnostics[0]?.message.length).toBeLessThan(200_000);
    }
    expect(host.plugins.find((p) => p.id === 'healthy')?.status).toBe('loaded');
    await expectHealthy(session);
    expectRealmIntact(before);
    return report;
  }

  it('a manifest field with a getter that loops forever fails the load, never hangs', async () => {
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", {
        pre: `
        const looping = defineTool({ name: 'looping', description: 'd', input: z.object({}), execute: () => 'x' });
        Object.defineProperty(looping, 'description', { get() { for (;;) {} } });`,
        moreTools: ['looping'],
      }),
      /time limit|timeoutMs|cpuMs/,
    );
  });

  it('a manifest with a cycle (annotations referring to themselves) fails the load', async () => {
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", {
        pre: `
        const cyclic: any = { readOnlyHint: true };
        cyclic.self = cyclic;
        const tool = defineTool({ name: 'cyclic', description: 'd', input: z.object({}), execute: () => 'x', annotations: cyclic });`,
        moreTools: ['tool'],
      }),
      /cannot be serialized|circular/i,
    );
  });

  it('a 10 MB description fails the load with a size message', async () => {
    await expectLoadFailure(
      `${HEADER}
      export default definePlugin({ id: 'evil', description: 'd'.repeat(10 * 1024 * 1024), tools: [
        defineTool({ name: 'attack', description: 'x', input: z.object({}), execute: () => 'x' }) ] });`,
      /over 1000000 characters|too big|at most|the limit is 10000/i,
    );
  });

  it('a description just under the runtime cap is still refused by the host schema', async () => {
    await expectLoadFailure(
      `${HEADER}
      export default definePlugin({ id: 'evil', tools: [
        defineTool({ name: 'attack', description: 'd'.repeat(900_000), input: z.object({}), execute: () => 'x' }) ] });`,
      /description/,
    );
  });

  it('an infinite loop in module code fails the load within the load time limit', async () => {
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", { pre: 'for (;;) {}' }),
      /time limit|timed out|cpuMs/i,
    );
  });

  it('a microtask spin started by module code fails the load, never hangs', async () => {
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", { pre: `(async () => { for (;;) await null; })();` }),
    );
  });

  it('a Proxy as the tools array and as permissions fails the load or is read as plain data', async () => {
    const before = snapshotRealm();
    const { host, session } = await h.start({
      plugins: {
        evil: `${HEADER}
        const trap = () => { throw new Error('trap'); };
        const tools = [defineTool({ name: 'attack', description: 'x', input: z.object({}), execute: () => 'x' })];
        export default definePlugin({
          id: 'evil',
          permissions: new Proxy({}, { get: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, has: trap }) as any,
          tools: new Proxy(tools, { get: (t: any, k: any) => (k === 'map' ? () => { throw new Error('no map'); } : t[k]) }),
        });`,
        healthy: HEALTHY_SOURCE,
      },
      settings: { evil: { limits: { ...SMALL_LIMITS } } },
    });
    const report = host.plugins.find((p) => p.id === 'evil');
    expect(report?.status).toBe('failed');
    expect(report?.diagnostics.join('\n')).toMatch(/trap|no map/);
    await expectHealthy(session);
    expectRealmIntact(before);
  });

  it('a memory bomb at load (process sandbox) fails the load; the executor survives for the others', async () => {
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", {
        pre: `const hoard: any[] = []; for (let i = 0; ; i++) hoard.push(new Array(1_000_000).fill(i));`,
      }),
      /memory|executor process died|crashed|failed/,
      'process',
    );
  });

  it('a describe reply forged to null (Object.prototype.toJSON at load) fails only that plugin', async () => {
    // The runtime serializes its describe reply with the captured JSON.stringify, which still
    // honours a plugin-installed Object.prototype.toJSON: returning undefined makes the reply `null`.
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", {
        pre: `Object.defineProperty(Object.prototype, 'toJSON', { configurable: true, value: () => undefined });`,
      }),
    );
  });

  it('a describe reply forged into another shape (a string, an array) fails only that plugin', async () => {
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", {
        pre: `let forged = false;
        Object.defineProperty(Object.prototype, 'toJSON', { configurable: true,
          value: function (this: any) {
            if (forged || !this || this.ok === undefined) return this;
            forged = true;
            return [{ ok: true, manifest: 'forged' }];
          } });`,
      }),
      /malformed|invalid/,
    );
  });

  it('a tool whose input schema is not an object (type "string") fails the load, naming the tool', async () => {
    // defineTool refuses a non-object input, but a hostile plugin swaps it afterwards; model APIs
    // take a tool's input as an object, so a string schema must never reach them.
    await expectLoadFailure(
      attackPlugin('evil', "return 'x';", {
        moreTools: [
          `(() => {
            const tool: any = defineTool({ name: 'stringy', description: 'd', input: z.object({}), execute: () => 'ok' });
            tool.input = z.string();
            return tool;
          })()`,
        ],
      }),
      /tool "stringy" declares an inputSchema of type "string"; a tool's input must be an object schema/,
    );
  });
});
