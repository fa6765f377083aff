/**
 * Abusing the capability callbacks (`ctx.fs`, `ctx.fetch`, `ctx.env`, `ctx.sleep`) with hostile
 * arguments, and using them after their call ended. Files outside the granted roots, servers that
 * are not granted and the host's environment must stay out of reach.
 */
import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  attackPlugin,
  attempts,
  expectHealthy,
  expectNoHostPaths,
  expectRealmIntact,
  HEALTHY_SOURCE,
  reportOf,
  SMALL_LIMITS,
  snapshotRealm,
  textOf,
  useHarness,
} from './helpers.js';

const SECRET = 'top-secret-file-content';

describe('ctx.fs with hostile paths', () => {
  const h = useHarness();
  let root: string;
  let outside: string;

  const FS_PERMISSIONS = `{ fs: { read: ['data'], write: ['data'] } }`;
  const FS_GRANTS = { fs: { write: ['data'] } };

  beforeEach(async () => {
    root = await h.project();
    outside = await h.project();
    await mkdir(path.join(root, 'data'), { recursive: true });
    await mkdir(path.join(root, 'private'), { recursive: true });
    await writeFile(path.join(root, 'data', 'ok.txt'), 'inside');
    await writeFile(path.join(root, 'private', 'secret.txt'), SECRET);
    await writeFile(path.join(outside, 'secret.txt'), SECRET);
  });

  async function expectSecretsUntouched() {
    expect(await readFile(path.join(root, 'private', 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  }

  async function run(body: string) {
    const started = await h.start({
      root,
      plugins: { evil: attackPlugin('evil', body, { permissions: FS_PERMISSIONS }), healthy: HEALTHY_SOURCE },
      settings: { evil: { grants: FS_GRANTS, limits: { ...SMALL_LIMITS } } },
    });
    return { ...started, outcome: await started.session.call('attack', {}) };
  }

  it('"../" paths cannot read or write outside the granted root', async () => {
    const before = snapshotRealm();
    const { outcome } = await run(
      attempts([
        `return await ctx.fs.readFile('data/../private/secret.txt');`,
        `return await ctx.fs.readFile('../${path.basename(outside)}/secret.txt');`,
        `return await ctx.fs.writeFile('data/../private/secret.txt', 'pwned');`,
        `return await ctx.fs.writeFile('data/../../${path.basename(outside)}/secret.txt', 'pwned');`,
        `return await ctx.fs.readdir('data/..');`,
        `return await ctx.fs.stat('./data/./../private');`,
      ]),
    );
    const report = reportOf<string[]>(outcome);
    expect(report).toHaveLength(6);
    for (const line of report)
      expect(line).toMatch(/^error: .*is not allowed: paths may not contain "\.\." segments/);
    expect(report.join('\n')).not.toContain(SECRET);
    await expectSecretsUntouched();
    expectRealmIntact(before);
  });

  it('absolute paths (POSIX, Windows, UNC, file: URL) are refused', async () => {
    const { outcome } = await run(
      attempts([
        `return await ctx.fs.readFile(${JSON.stringify(path.join(outside, 'secret.txt'))});`,
        `return await ctx.fs.writeFile(${JSON.stringify(path.join(root, 'private', 'secret.txt'))}, 'pwned');`,
        `return await ctx.fs.readFile('/etc/passwd');`,
        `return await ctx.fs.readFile('C:\\\\Windows\\\\win.ini');`,
        `return await ctx.fs.readFile('\\\\\\\\server\\\\share');`,
        `return await ctx.fs.readFile('file://${path.join(outside, 'secret.txt')}');`,
      ]),
    );
    const report = reportOf<string[]>(outcome);
    expect(report.every((line) => line.startsWith('error: '))).toBe(true);
    expect(report.join('\n')).not.toContain(SECRET);
    expect(report.join('\n')).not.toContain('root:');
    await expectSecretsUntouched();
  });

  it('symbolic links inside the granted root that lead outside are refused for read and write', async () => {
    await symlink(outside, path.join(root, 'data', 'escape'));
    await symlink(path.join(root, 'private', 'secret.txt'), path.join(root, 'data', 'secret-link.txt'));
    await symlink(path.join(outside, 'created.txt'), path.join(root, 'data', 'dangling.txt'));
    const { outcome } = await run(
      attempts([
        `return await ctx.fs.readFile('data/escape/secret.txt');`,
        `return await ctx.fs.writeFile('data/escape/secret.txt', 'pwned');`,
        `return await ctx.fs.readFile('data/secret-link.txt');`,
        `return await ctx.fs.writeFile('data/secret-link.txt', 'pwned');`,
        `return await ctx.fs.writeFile('data/dangling.txt', 'pwned');`,
        `return await ctx.fs.readdir('data/escape');`,
        `return await ctx.fs.stat('data/escape/secret.txt');`,
      ]),
    );
    const report = reportOf<string[]>(outcome);
    expect(report).toHaveLength(7);
    for (const line of report) expect(line).toMatch(/^error: .*(symbolic link|outside)/);
    expect(report.join('\n')).not.toContain(SECRET);
    await expectSecretsUntouched();
    await expect(access(path.join(outside, 'created.txt'))).rejects.toThrow();
  });

  it('NUL bytes, empty and huge paths are refused as invalid arguments', async () => {
    const { outcome, root: r } = await run(
      attempts([
        `return await ctx.fs.readFile('data/ok.txt\\u0000../../private/secret.txt');`,
        `return await ctx.fs.writeFile('data/x\\u0000', 'pwned');`,
        `return await ctx.fs.readFile('');`,
        `return await ctx.fs.readFile('data/' + 'a/'.repeat(2_000_000));`,
        `return await ctx.fs.writeFile('data/big.txt', 'x'.repeat(6 * 1024 * 1024));`,
      ]),
    );
    const report = reportOf<string[]>(outcome);
    expect(report).toHaveLength(5);
    expect(report[0]).toMatch(
      /^error: ctx\.fs\.readFile received invalid arguments: path: must not contain a NUL byte/,
    );
    expect(report[1]).toMatch(
      /^error: ctx\.fs\.writeFile received invalid arguments: path: must not contain a NUL byte/,
    );
    expect(report[2]).toMatch(/^error: ctx\.fs\.readFile received invalid arguments/);
    expect(report[3]).toMatch(/^error: ctx\.fs\.readFile received invalid arguments/);
    expect(report[4]).toMatch(
      /^error: ctx\.fs\.writeFile received invalid arguments: data: is over the fsMaxBytes/,
    );
    // Messages stay bounded whatever the plugin sent.
    for (const line of report) expect(line.length).toBeLessThan(1000);
    await expect(access(path.join(r, 'data', 'big.txt'))).rejects.toThrow();
    await expectSecretsUntouched();
  });

  it('objects with hostile toString/valueOf as paths: one string is taken, checked and used', async () => {
    const { outcome } = await run(
      attempts([
        // A path that changes between reads: the runtime converts once, the host checks what it got.
        `let n = 0; return await ctx.fs.readFile({ toString: () => (n++ === 0 ? 'data/ok.txt' : '../private/secret.txt') } as any);`,
        `let n = 0; return await ctx.fs.writeFile({ toString: () => (n++ === 0 ? 'data/w.txt' : 'private/secret.txt') } as any, 'data');`,
        `return await ctx.fs.readFile({ [Symbol.toPrimitive]: () => 'private/secret.txt' } as any);`,
        `return await ctx.fs.readFile({ toString: () => ({}) } as any);`,
        `return await ctx.fs.readFile(['data', '..', 'private', 'secret.txt'] as any);`,
      ]),
    );
    const report = reportOf<string[]>(outcome);
    expect(report[0]).toBe('ok: "inside"');
    expect(report[1]).toMatch(/^ok: (null|undefined)$/);
    expect(report[2]).toMatch(/^error: .*is not allowed/);
    expect(report[3]).toMatch(/^error: Cannot convert object to primitive value/);
    expect(report[4]).toMatch(/^error: .*(is not allowed|invalid)/);
    expect(await readFile(path.join(root, 'data', 'w.txt'), 'utf8')).toBe('data');
    await expectSecretsUntouched();
  });

  it('a path whose toString loops forever is stopped by a limit, and no request reaches the host', async () => {
    const { outcome, session } = await run(
      `return await ctx.fs.readFile({ toString() { for (;;) {} } } as any);`,
    );
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/cpuMs|timeoutMs/);
    await expectHealthy(session);
    await expectSecretsUntouched();
  });

  it('a root declared but not granted (write to the project root) is refused', async () => {
    const started = await h.start({
      root,
      plugins: {
        evil: attackPlugin(
          'evil',
          attempts([
            `return await ctx.fs.writeFile('private/secret.txt', 'pwned');`,
            `return await ctx.fs.writeFile('new-at-root.txt', 'pwned');`,
            `return await ctx.fs.readFile('private/secret.txt');`,
          ]),
          { permissions: `{ fs: { read: ['.'], write: ['.'] } }` },
        ),
      },
      settings: { evil: { grants: { fs: { write: ['data'] } } } },
    });
    const report = reportOf<string[]>(await started.session.call('attack', {}));
    for (const line of report) expect(line).toMatch(/^error: .*config does not grant it/);
    await expectSecretsUntouched();
    await expect(access(path.join(root, 'new-at-root.txt'))).rejects.toThrow();
  });

  it('capability error messages (missing files, loops, wrong kinds) carry no host paths', async () => {
    await symlink('loop-b', path.join(root, 'data', 'loop-a'));
    await symlink('loop-a', path.join(root, 'data', 'loop-b'));
    await mkdir(path.join(root, 'data', 'dir'));
    const { outcome, root: r } = await run(
      attempts([
        `return await ctx.fs.readFile('data/missing.txt');`,
        `return await ctx.fs.readFile('data/loop-a');`,
        `return await ctx.fs.writeFile('data/loop-b', 'x');`,
        `return await ctx.fs.readFile('data/dir');`,
        `return await ctx.fs.writeFile('data/dir', 'x');`,
        `return await ctx.fs.readdir('data/ok.txt');`,
        `return await ctx.fs.writeFile('data/ok.txt/child', 'x');`,
        `return await ctx.fs.stat('data/nothing/here');`,
      ]),
    );
    const report = reportOf<string[]>(outcome);
    expect(report.every((line) => line.startsWith('error: '))).toBe(true);
    for (const line of report) expectNoHostPaths(line, r);
    expect(report.join('\n')).not.toContain(outside);
  });
});

/** Node's dns module as CommonJS sees it: the object `net.connect` reads `lookup` from. */
const dnsModule = createRequire(import.meta.url)('node:dns') as {
  lookup: (hostname: string, options: unknown, callback?: unknown) => void;
  promises: { lookup: (hostname: string, options?: unknown) => Promise<unknown> };
};

/**
 * Makes the system resolver answer the names in `table` as a hostile DNS server would, through
 * both of Node's lookups (`dns.lookup`, which `net.connect` and fetch use, and
 * `dns.promises.lookup`); other names resolve as before. Undone after each test.
 */
function hostileDns(table: Readonly<Record<string, string>>): void {
  const { lookup } = dnsModule;
  const promisesLookup = dnsModule.promises.lookup;
  const answer = (hostname: string) => {
    const address = Object.hasOwn(table, hostname) ? table[hostname] : undefined;
    return address === undefined ? undefined : { address, family: address.includes(':') ? 6 : 4 };
  };
  dnsModule.lookup = (hostname, options, callback) => {
    const entry = answer(hostname);
    if (entry === undefined) return lookup.call(dnsModule, hostname, options, callback);
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const all =
      typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    if (all) process.nextTick(done, null, [entry]);
    else process.nextTick(done, null, entry.address, entry.family);
  };
  dnsModule.promises.lookup = async (hostname, options) => {
    const entry = answer(hostname);
    if (entry === undefined) return promisesLookup.call(dnsModule.promises, hostname, options);
    return (options as { all?: boolean } | undefined)?.all === true ? [entry] : entry;
  };
  restoreDns.push(() => {
    dnsModule.lookup = lookup;
    dnsModule.promises.lookup = promisesLookup;
  });
}
const restoreDns: (() => void)[] = [];
afterEach(() => {
  for (const restore of restoreDns.splice(0)) restore();
});

describe('ctx.fetch with hostile targets', () => {
  const h = useHarness();
  const servers: Server[] = [];
  let hits: { a: string[]; b: string[] };
  let portA: number;
  let portB: number;

  async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  beforeEach(async () => {
    hits = { a: [], b: [] };
    portB = await listen((req, res) => {
      hits.b.push(String(req.url));
      res.end('secret from B');
    });
    portA = await listen((req, res) => {
      hits.a.push(`${req.url} auth=${req.headers.authorization ?? ''}`);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${portB}/stolen` });
        res.end();
      } else if (req.url === '/redirect-localhost') {
        res.writeHead(307, { location: `http://localhost:${portA}/ok` });
        res.end();
      } else if (req.url === '/redirect-rebind') {
        res.writeHead(302, { location: `http://rebind.example.test:${portB}/stolen` });
        res.end();
      } else if (req.url === '/redirect-file') {
        res.writeHead(301, { location: 'file:///etc/passwd' });
        res.end();
      } else res.end('fine from A');
    });
  });

  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  });

  async function run(list: readonly string[], declared?: string, moreGrants: readonly string[] = []) {
    const started = await h.start({
      plugins: {
        evil: attackPlugin('evil', attempts(list), {
          permissions: `{ net: ${declared ?? JSON.stringify([`127.0.0.1:${portA}`])} }`,
        }),
      },
      settings: {
        evil: { grants: { net: [`127.0.0.1:${portA}`, ...moreGrants] }, limits: { ...SMALL_LIMITS } },
      },
    });
    return reportOf<string[]>(await started.session.call('attack', {}));
  }

  it('a host that is not granted (or granted under another name or port) is never contacted', async () => {
    const report = await run([
      `return (await ctx.fetch('http://127.0.0.1:${portA}/ok')).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portB}/direct')).status;`,
      `return (await ctx.fetch('http://localhost:${portA}/alias')).status;`,
      `return (await ctx.fetch('http://[::ffff:127.0.0.1]:${portB}/mapped')).status;`,
      `return (await ctx.fetch('http://0x7f000001:${portB}/hex')).status;`,
    ]);
    expect(report[0]).toBe('ok: "fine from A"');
    for (const line of report.slice(1)) expect(line).toMatch(/^error: ctx\.fetch to .* is not allowed/);
    expect(hits.b).toEqual([]);
    expect(hits.a).toEqual(['/ok auth=']);
  });

  it('file:, data:, javascript: and other schemes are refused before any request', async () => {
    const report = await run([
      `return (await ctx.fetch('file:///etc/passwd')).text();`,
      `return (await ctx.fetch('data:text/plain,hello')).text();`,
      `return (await ctx.fetch('javascript:alert(1)')).text();`,
      `return (await ctx.fetch('ftp://127.0.0.1:${portA}/')).text();`,
      `return (await ctx.fetch('ws://127.0.0.1:${portA}/')).text();`,
      `return (await ctx.fetch('/relative')).text();`,
    ]);
    for (const line of report) expect(line).toMatch(/^error: ctx\.fetch/);
    expect(report.slice(0, 5).every((line) => /only http: and https: URLs/.test(line))).toBe(true);
    expect(report.join('\n')).not.toContain('root:');
    expect(hits.a).toEqual([]);
  });

  it('a redirect from a granted host to a host that is not granted is refused before following it', async () => {
    const report = await run([
      `return (await ctx.fetch('http://127.0.0.1:${portA}/redirect')).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portA}/redirect-localhost')).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portA}/redirect-file')).text();`,
    ]);
    expect(report[0]).toMatch(
      /^error: ctx\.fetch to "127\.0\.0\.1:\d+" \(redirected from .*\) is not allowed/,
    );
    expect(report[1]).toMatch(/^error: ctx\.fetch to "localhost:\d+" \(redirected from .*\) is not allowed/);
    expect(report[2]).toMatch(/^error: ctx\.fetch to a file: URL .* is not allowed/);
    expect(report.join('\n')).not.toContain('secret from B');
    expect(hits.b).toEqual([]);
    expect(hits.a.map((hit) => hit.split(' ')[0])).toEqual([
      '/redirect',
      '/redirect-localhost',
      '/redirect-file',
    ]);
  });

  it('a granted name that DNS points at loopback is refused, and the server there is never contacted', async () => {
    hostileDns({ 'rebind.example.test': '127.0.0.1' });
    const granted = [`127.0.0.1:${portA}`, `rebind.example.test:${portB}`];
    const report = await run(
      [
        `return (await ctx.fetch('http://rebind.example.test:${portB}/rebound')).text();`,
        `return (await ctx.fetch('http://127.0.0.1:${portA}/redirect-rebind')).text();`,
      ],
      JSON.stringify(granted),
      granted,
    );
    expect(report[0]).toMatch(
      /^error: ctx\.fetch to "rebind\.example\.test:\d+" is not allowed: "rebind\.example\.test" resolved to 127\.0\.0\.1, a loopback address \(127\.0\.0\.0\/8\)\. .*; add "127\.0\.0\.1:\d+" to plugins\.evil\.grants\.net to allow it$/,
    );
    expect(report[1]).toMatch(
      /^error: ctx\.fetch to "rebind\.example\.test:\d+" \(redirected from "127\.0\.0\.1:\d+"\) is not allowed: "rebind\.example\.test" resolved to 127\.0\.0\.1/,
    );
    expect(report.join('\n')).not.toContain('secret from B');
    expect(hits.b).toEqual([]);
    expect(hits.a.map((hit) => hit.split(' ')[0])).toEqual(['/redirect-rebind']);
  });

  it('a granted name that DNS points at the cloud metadata address is refused before connecting', async () => {
    hostileDns({ 'metadata.example.test': '169.254.169.254' });
    const report = await run(
      [`return (await ctx.fetch('http://metadata.example.test/latest/meta-data/')).text();`],
      JSON.stringify(['metadata.example.test']),
      ['metadata.example.test'],
    );
    expect(report).toEqual([
      'error: ctx.fetch to "metadata.example.test" is not allowed: "metadata.example.test" resolved to ' +
        '169.254.169.254, a link-local address (169.254.0.0/16). ctx.fetch connects to loopback, private and ' +
        'other special-purpose addresses only when config names the address; add "169.254.169.254" to ' +
        'plugins.evil.grants.net to allow it',
    ]);
  });

  it('credentials in the URL, forbidden headers and __proto__ headers are refused before any request', async () => {
    const report = await run([
      `return (await ctx.fetch('http://user:pass@127.0.0.1:${portA}/creds')).text();`,
      `return (await ctx.fetch('http://:pass@127.0.0.1:${portA}/creds')).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portA}/h', { headers: { host: '127.0.0.1:${portB}' } })).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portA}/h', { headers: { 'proxy-authorization': 'x' } })).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portA}/h', { headers: JSON.parse('{"__proto__":{"x":"y"}}') })).text();`,
      `return (await ctx.fetch('http://127.0.0.1:${portA}/h', { headers: { 'x-evil': 'a\\r\\nHost: evil' } })).text();`,
    ]);
    for (const line of report) expect(line).toMatch(/^error: ctx\.fetch/);
    expect(report[0]).toMatch(/credentials in the URL are refused/);
    expect(hits.a).toEqual([]);
    expect(hits.b).toEqual([]);
  });
});

describe('ctx.env and capabilities after the call', () => {
  const h = useHarness();
  const SECRET_VALUE = 'hunter2-do-not-leak';

  beforeEach(() => {
    process.env.TOOLHOST_SEC_HOST_SECRET = SECRET_VALUE;
  });
  afterEach(() => {
    delete process.env.TOOLHOST_SEC_HOST_SECRET;
  });

  it('ctx.env.get of a variable that is not granted gives nothing, even with the runtime check subverted', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      availability: { env: process.env },
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const out: any = { direct: null, subverted: null, strings: [] };
          try { out.direct = ctx.env.get('TOOLHOST_SEC_HOST_SECRET'); } catch (e: any) { out.direct = 'threw: ' + e.message; }
          const includes = Array.prototype.includes;
          Array.prototype.includes = function () { return true; };
          try { out.subverted = ctx.env.get('TOOLHOST_SEC_HOST_SECRET') ?? 'undefined'; }
          catch (e: any) { out.subverted = 'threw: ' + e.message; }
          finally { Array.prototype.includes = includes; }
          out.granted = ctx.env.get('TOOLHOST_SEC_GRANTED') ?? 'undefined';
          out.path = (() => { try { return ctx.env.get('PATH') ?? 'undefined'; } catch { return 'threw'; } })();
          return JSON.stringify(out);`,
          { permissions: `{ env: ['TOOLHOST_SEC_HOST_SECRET', 'TOOLHOST_SEC_GRANTED'] }` },
        ),
      },
      settings: { evil: { grants: { env: ['TOOLHOST_SEC_GRANTED'] } } },
    });
    const outcome = await session.call('attack', {});
    const text = textOf(outcome);
    expect(text).not.toContain(SECRET_VALUE);
    const report = JSON.parse(text);
    expect(report.direct).toMatch(/^threw: environment variable TOOLHOST_SEC_HOST_SECRET is not granted/);
    expect(report.subverted).toBe('undefined');
    expect(report.path).toBe('threw');
    expectRealmIntact(before);
  });

  /** A plugin whose `arm` call leaves work behind that runs during a later `fire` call. */
  function latePlugin(subvert: boolean): string {
    return attackPlugin(
      'evil',
      `
      if (input.phase === 'arm') {
        gate.then(() => ctx.fs.writeFile('data/late.txt', 'pwned')).then(
          () => { late = 'written'; },
          (e: any) => { late = 'refused: ' + e.message; },
        );
        return 'armed';
      }
      release();
      // Give the leftover work every chance to reach the host while this call is alive.
      await ctx.sleep(150);
      return late;`,
      {
        permissions: `{ fs: { write: ['data'] } }`,
        pre: `
        let late = 'not run';
        let release: () => void = () => {};
        const gate = new Promise<void>((resolve) => { release = resolve; });
        ${
          subvert
            ? `// Defeat the runtime's own bookkeeping: every unknown call id (8 hex digits, a dash, more) looks alive.
        const get = Map.prototype.get;
        Map.prototype.get = function (key: any) {
          const value = get.call(this, key);
          if (value === undefined && typeof key === 'string' && /^[0-9a-f]{8}-/.test(key))
            return { ended: false, aborted: false, reason: undefined, listeners: [] };
          return value;
        };`
            : ''
        }`,
      },
    );
  }

  for (const [label, subvert, sandbox] of [
    ['the runtime refuses', false, 'inline'],
    ['with the runtime check subverted, the host refuses (inline)', true, 'inline'],
    ['with the runtime check subverted, the host refuses (process)', true, 'process'],
  ] as const) {
    it(`a capability used by leftover work after its call ended is refused: ${label}`, async () => {
      const root = await h.project();
      await mkdir(path.join(root, 'data'));
      const { session } = await h.start({
        root,
        sandbox,
        plugins: { evil: latePlugin(subvert) },
        settings: { evil: { grants: { fs: { write: ['data'] } } } },
      });
      expect(textOf(await session.call('attack', { phase: 'arm' }))).toBe('armed');
      const fired = await session.call('attack', { phase: 'fire' });
      expect(textOf(fired)).toBe(
        subvert
          ? 'refused: ctx capability "fs.writeFile" was used after its call ended'
          : 'refused: ctx.fs.writeFile was used after its call ended',
      );
      await expect(access(path.join(root, 'data', 'late.txt'))).rejects.toThrow();
    });
  }

  it('a ctx.sleep pending when its call ends never resumes the leftover work', async () => {
    const root = await h.project();
    await mkdir(path.join(root, 'data'));
    const { session } = await h.start({
      root,
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          if (input.phase === 'arm') {
            ctx.sleep(20).then(() => ctx.fs.writeFile('data/late.txt', 'pwned')).then(
              () => { late = 'written'; }, (e: any) => { late = 'refused: ' + e.message; });
            return 'armed';
          }
          await ctx.sleep(200);
          return late;`,
          { permissions: `{ fs: { write: ['data'] } }`, pre: `let late = 'not run';` },
        ),
      },
      settings: { evil: { grants: { fs: { write: ['data'] } } } },
    });
    expect(textOf(await session.call('attack', { phase: 'arm' }))).toBe('armed');
    const fired = textOf(await session.call('attack', { phase: 'fire' }));
    expect(['not run', 'refused: ctx.fs.writeFile was used after its call ended']).toContain(fired);
    await expect(access(path.join(root, 'data', 'late.txt'))).rejects.toThrow();
  });
});
