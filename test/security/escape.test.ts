/**
 * Plugin code looking for a way out of its isolate: constructor chains, Node globals, dynamic
 * import, leftover setup globals, the functions handed in on `ctx`, stack-trace tricks.
 */

import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import {
  attackPlugin,
  expectHealthy,
  expectNoHostPaths,
  expectRealmIntact,
  HEALTHY_SOURCE,
  reportOf,
  snapshotRealm,
  textOf,
  useHarness,
} from './helpers.js';

const NODE_GLOBALS = [
  'process',
  'require',
  'module',
  'exports',
  '__dirname',
  '__filename',
  'Buffer',
  'global',
  'setImmediate',
  'WebAssembly',
];
// setTimeout, fetch, structuredClone, queueMicrotask and the other web globals do exist now,
// written in the isolate's own realm: runtime-globals.test.ts checks that none of them leads out.

describe('escaping the isolate through the language', () => {
  const h = useHarness();

  it('({}).constructor.constructor("return process")() finds no process', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const F = ({}).constructor.constructor;
          const out: any = {};
          try { const p = F('return process')(); out.process = typeof p; p.env.PWNED = '1'; p.exit(99); }
          catch (e: any) { out.error = String(e && e.message); }
          try { out.mainModule = typeof F('return process.mainModule.require("fs")')(); }
          catch (e: any) { out.mainModuleError = String(e && e.message); }
          return JSON.stringify(out);`,
        ),
        healthy: HEALTHY_SOURCE,
      },
    });
    const report = reportOf(await session.call('attack', {}));
    expect(report.process).toBeUndefined();
    expect(report.error).toBe('process is not defined');
    expect(report.mainModuleError).toBe('process is not defined');
    expect(process.env.PWNED).toBeUndefined();
    await expectHealthy(session);
    expectRealmIntact(before);
  });

  it('Function("return this")() is the isolate global, which has no Node globals', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const g = Function('return this')();
          const names = ${JSON.stringify(NODE_GLOBALS)};
          const found: Record<string, string> = {};
          for (const n of names) found[n] = typeof g[n];
          for (const n of names) { try { found['eval:' + n] = (0, eval)('typeof ' + n); } catch (e: any) { found['eval:' + n] = 'threw'; } }
          return JSON.stringify({ same: g === globalThis, found });`,
        ),
      },
    });
    const report = reportOf<{ same: boolean; found: Record<string, string> }>(
      await session.call('attack', {}),
    );
    expect(report.same).toBe(true);
    for (const name of NODE_GLOBALS) {
      expect(report.found[name], name).toBe('undefined');
      expect(report.found[`eval:${name}`], name).toBe('undefined');
    }
    expectRealmIntact(before);
  });

  it('async, generator and async-generator function constructors reach nothing more', async () => {
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const AsyncF = (async () => {}).constructor;
          const GenF = (function* () {}).constructor;
          const AsyncGenF = (async function* () {}).constructor;
          const out: any = {};
          out.async = await AsyncF('return typeof process + "/" + typeof require')();
          out.gen = GenF('yield typeof process; yield typeof module')().next().value;
          out.asyncGen = (await AsyncGenF('yield typeof __dirname')().next()).value;
          out.bound = await Function.prototype.bind.call(AsyncF, null, 'return typeof Buffer')()();
          return JSON.stringify(out);`,
        ),
      },
    });
    expect(reportOf(await session.call('attack', {}))).toEqual({
      async: 'undefined/undefined',
      gen: 'undefined',
      asyncGen: 'undefined',
      bound: 'undefined',
    });
  });

  it('dynamic import() of Node modules at execute time is refused', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const out: string[] = [];
          for (const spec of ['node:fs', 'node:child_process', 'fs', 'data:text/javascript,export default 1']) {
            try {
              const m: any = await new Function('s', 'return import(s)')(spec);
              out.push(spec + ': loaded ' + Object.keys(m).join(','));
              if (m.writeFileSync) m.writeFileSync('/tmp/toolhost-sec-pwned', 'x');
            } catch (e: any) { out.push(spec + ': refused'); }
          }
          return JSON.stringify(out);`,
        ),
      },
    });
    expect(reportOf(await session.call('attack', {}))).toEqual([
      'node:fs: refused',
      'node:child_process: refused',
      'fs: refused',
      'data:text/javascript,export default 1: refused',
    ]);
    expectRealmIntact(before);
  });

  it('dynamic import() at load time is refused too, and the plugin loads without it', async () => {
    const { session, host } = await h.start({
      plugins: {
        evil: attackPlugin('evil', 'return loadImport;', {
          pre: `
          let loadImport = 'pending';
          try {
            (0, eval)('import("node:child_process")').then(
              () => { loadImport = 'resolved'; },
              () => { loadImport = 'rejected'; },
            );
          } catch (e: any) { loadImport = 'threw'; }`,
        }),
      },
    });
    expect(host.plugins.find((p) => p.id === 'evil')?.status).toBe('loaded');
    const text = textOf(await session.call('attack', {}));
    expect(['rejected', 'threw']).toContain(text);
  });

  it('no setup global (__toolhost_*), ivm, Reference, ExternalCopy or Callback is left to plugin code', async () => {
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const now = Object.getOwnPropertyNames(globalThis).filter((n) => suspicious.test(n));
          const typeofs = ['__toolhost_bridge', '__toolhost_entry', '__toolhost_attach', '__toolhost_register', 'ivm', '_ivm',
            'Reference', 'ExternalCopy', 'Callback', 'Isolate', 'Context', 'Script']
            .map((n) => n + ':' + typeof (globalThis as any)[n]);
          return JSON.stringify({ atLoad, now, typeofs });`,
          {
            pre: `
          const suspicious = /toolhost|ivm|^reference$|externalcopy|callback|isolate/i;
          const atLoad = Object.getOwnPropertyNames(globalThis).filter((n) => suspicious.test(n));`,
          },
        ),
      },
    });
    const report = reportOf<{ atLoad: string[]; now: string[]; typeofs: string[] }>(
      await session.call('attack', {}),
    );
    // While the plugin module evaluates, only the one-shot registration hook exists.
    expect(report.atLoad).not.toContain('__toolhost_bridge');
    expect(report.atLoad).not.toContain('__toolhost_entry');
    expect(report.atLoad.filter((n) => n !== '__toolhost_register')).toEqual([]);
    expect(report.now).toEqual([]);
    expect(report.typeofs.every((t) => t.endsWith(':undefined'))).toBe(true);
  });

  it('every function and object handed in on ctx belongs to the isolate and opens no door', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const seen = new Set<any>();
          const anomalies: string[] = [];
          let functions = 0;
          // This realm's when its chain reaches this realm's Object.prototype (a class of the
          // runtime's, such as ctx.signal's, included); a host object's reaches the host's instead.
          const ownRealm = (proto: any) => {
            for (let p = proto, i = 0; p !== null && i < 8; p = Object.getPrototypeOf(p), i++) {
              if (p === Object.prototype) return true;
            }
            return proto === null;
          };
          const walk = (value: any, where: string, depth: number) => {
            if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
            if (seen.has(value) || depth > 4) return;
            seen.add(value);
            const proto = Object.getPrototypeOf(value);
            if (value === Function.prototype) {
              if (proto !== Object.prototype) anomalies.push(where + ': foreign Function.prototype');
            } else if (typeof value === 'function') {
              functions++;
              if (proto !== Function.prototype && proto !== (async () => {}).constructor.prototype)
                anomalies.push(where + ': foreign function prototype');
              try {
                const r = value.constructor('return typeof process + typeof require')();
                if (r !== 'undefinedundefined') anomalies.push(where + ': ' + r);
              } catch (e: any) { anomalies.push(where + ': constructor threw ' + e.message); }
            } else if (!ownRealm(proto)) {
              anomalies.push(where + ': foreign object prototype');
            }
            for (const key of Reflect.ownKeys(value)) {
              const d = Object.getOwnPropertyDescriptor(value, key)!;
              if ('value' in d) walk(d.value, where + '.' + String(key), depth + 1);
            }
            walk(proto, where + '.__proto__', depth + 1);
          };
          walk(ctx, 'ctx', 0);
          return JSON.stringify({ anomalies, functions });`,
        ),
      },
    });
    const report = reportOf<{ anomalies: string[]; functions: number }>(await session.call('attack', {}));
    expect(report.anomalies).toEqual([]);
    expect(report.functions).toBeGreaterThan(10);
    expectRealmIntact(before);
  });

  it('eval and new Function work inside the isolate and see only its own global', async () => {
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const direct = eval('typeof process');
          const indirectGlobal = (0, eval)('this') === globalThis;
          const viaFunction = new Function('return Object.getOwnPropertyNames(this).length')();
          const viaRealm = Object.getOwnPropertyNames(globalThis).length;
          const sum = new Function('a', 'b', 'return a + b')(20, 22);
          return JSON.stringify({ direct, indirectGlobal, sameGlobal: viaFunction === viaRealm, sum });`,
        ),
      },
    });
    expect(reportOf(await session.call('attack', {}))).toEqual({
      direct: 'undefined',
      indirectGlobal: true,
      sameGlobal: true,
      sum: 42,
    });
  });

  it('WebAssembly is gone and cannot be recovered from another realm object', async () => {
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const out: any = { global: typeof (globalThis as any).WebAssembly };
          try { out.evalWasm = (0, eval)('typeof WebAssembly'); } catch { out.evalWasm = 'threw'; }
          try { out.fnWasm = new Function('return typeof WebAssembly')(); } catch { out.fnWasm = 'threw'; }
          out.ownDescriptor = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly') === undefined;
          return JSON.stringify(out);`,
        ),
      },
    });
    expect(reportOf(await session.call('attack', {}))).toEqual({
      global: 'undefined',
      evalWasm: 'undefined',
      fnWasm: 'undefined',
      ownDescriptor: true,
    });
  });

  it('Error.prepareStackTrace cannot be installed to harvest call sites of the runtime', async () => {
    const { session, root } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const out: any = {};
          const harvest = (_e: any, frames: any[]) =>
            frames.map((f) => String(f.getFileName()) + '|' + typeof f.getThis() + '|' + typeof f.getFunction());
          try { (Error as any).prepareStackTrace = harvest; out.assigned = 'ok'; } catch (e: any) { out.assigned = 'threw'; }
          try { Object.defineProperty(Error, 'prepareStackTrace', { value: harvest }); out.defined = 'ok'; }
          catch (e: any) { out.defined = 'threw'; }
          out.installed = (Error as any).prepareStackTrace === harvest;
          out.stack = String(new Error('probe').stack);
          return JSON.stringify(out);`,
        ),
      },
    });
    const report = reportOf<{ installed: boolean; defined: string; stack: string }>(
      await session.call('attack', {}),
    );
    expect(report.installed).toBe(false);
    expect(report.defined).toBe('threw');
    expect(report.stack).toMatch(/^Error: probe/);
    expectNoHostPaths(report.stack, root);
  });

  it('stacks from Error.captureStackTrace and from capability errors carry no host paths', async () => {
    const { session, root } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const texts: string[] = [];
          const holder: any = {};
          Error.captureStackTrace(holder);
          texts.push(String(holder.stack));
          for (const attempt of [
            () => ctx.fs.readFile('data/missing.txt'),
            () => ctx.fs.readFile('../../etc/passwd'),
            () => ctx.fs.writeFile('/etc/passwd', 'x'),
            () => ctx.fs.readdir('data/file.txt'),
            () => ctx.fs.stat('data/missing/deeper'),
            () => ctx.fetch('http://127.0.0.1:9/'),
            () => ctx.sleep(-1),
          ]) {
            try { await attempt(); texts.push('no error'); }
            catch (e: any) { texts.push(String(e.message) + '\\n' + String(e.stack)); }
          }
          try { ctx.env.get('HOME'); } catch (e: any) { texts.push(String(e.message) + '\\n' + String(e.stack)); }
          return JSON.stringify(texts);`,
          { permissions: `{ fs: { read: ['data'] } }` },
        ),
      },
      settings: { evil: { grants: { fs: { read: ['data'] } } } },
    });
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(`${root}/data`, { recursive: true });
    await writeFile(`${root}/data/file.txt`, 'hello');
    const texts = reportOf<string[]>(await session.call('attack', {}));
    expect(texts).toHaveLength(9);
    expect(texts.filter((t) => t === 'no error')).toEqual([]);
    for (const text of texts) expectNoHostPaths(text, root);
  });

  it('a host error thrown from a callback (a failing log observer) reaches plugin code without host paths', async () => {
    const { session, root } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          try { ctx.log.info('trigger'); return 'no error'; }
          catch (e: any) { return String(e && e.message) + '\\n' + String(e && e.stack); }`,
        ),
      },
    });
    const outcome = await session.call('attack', {}, undefined, {
      observer: {
        log: () => {
          throw new Error('the host observer failed');
        },
      },
    });
    const text = textOf(outcome);
    expectNoHostPaths(text, root);
  });

  it('a host error thrown from a callback in process mode (a failing log observer) does not crash the host', async () => {
    // A throwing 'uncaughtException' would end a real host; record it instead of letting it through.
    const uncaught: unknown[] = [];
    const saved = process.listeners('uncaughtException');
    const capture = (error: unknown) => uncaught.push(error);
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', capture);
    try {
      const { session } = await h.start({
        sandbox: 'process',
        plugins: {
          evil: attackPlugin(
            'evil',
            `
            try { ctx.log.info('trigger'); } catch (e: any) { return 'caught ' + e.message; }
            // Stay alive while the host handles the log line.
            await ctx.sleep(100);
            return 'logged';`,
          ),
          healthy: HEALTHY_SOURCE,
        },
      });
      const outcome = await session.call('attack', {}, undefined, {
        observer: {
          log: () => {
            throw new Error('the host observer failed');
          },
        },
      });
      expect(outcome.result.content.length).toBeGreaterThan(0);
      await expectHealthy(session);
    } finally {
      process.off('uncaughtException', capture);
      for (const listener of saved) process.on('uncaughtException', listener);
    }
    expect(uncaught.map((error) => String(error))).toEqual([]);
  });

  it('in the executor process plugin code reaches neither process nor its IPC channel', async () => {
    const before = snapshotRealm();
    const { session, host } = await h.start({
      sandbox: 'process',
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const F = ({}).constructor.constructor;
          const out: any = {};
          for (const expr of ['process', 'process.send', 'require', 'process.binding', 'globalThis.process']) {
            try { out[expr] = typeof F('return ' + expr)(); } catch (e: any) { out[expr] = 'threw'; }
          }
          return JSON.stringify(out);`,
        ),
        healthy: HEALTHY_SOURCE,
      },
    });
    expect(internalsOf(host).sandbox?.mode).toBe('process');
    const report = reportOf<Record<string, string>>(await session.call('attack', {}));
    expect(Object.values(report).every((v) => v === 'threw' || v === 'undefined')).toBe(true);
    expect(report.process).toBe('threw');
    await expectHealthy(session);
    expectRealmIntact(before);
  });
});
