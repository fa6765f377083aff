import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PluginPermissions } from '@toolhost/plugin-sdk';
import {
  type CapabilityProvider,
  type CapabilityProviderOptions,
  createCapabilityProvider,
  type FetchResolver,
  type FetchTransport,
  type PluginGrants,
  type TransportRequest,
} from '../../src/capabilities/index.js';

export const PLUGIN_ID = 'demo';
export const SECRET = 'TOP SECRET outside the project\n';

/** A provider for plugin `demo` over `root`. */
export function provider(
  root: string,
  permissions: PluginPermissions,
  grants: PluginGrants,
  extra: Pick<CapabilityProviderOptions, 'limits' | 'resolve' | 'transport' | 'folderMode'> = {},
): CapabilityProvider {
  return createCapabilityProvider({ pluginId: PLUGIN_ID, root, permissions, grants, ...extra });
}

/** A public address (outside every special-purpose block) for names that resolve "somewhere". */
export const PUBLIC_IP = '93.184.215.14';

/**
 * A resolver answering from `table` (name → addresses) instead of DNS, recording every name it
 * was asked; a name not in the table gets `fallback`, or fails as DNS does (`ENOTFOUND`).
 */
export function resolver(
  table: Readonly<Record<string, readonly string[]>>,
  fallback?: readonly string[],
): FetchResolver & { readonly asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = Object.hasOwn(table, hostname) ? table[hostname] : fallback;
    if (addresses === undefined)
      throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address }));
  };
  return Object.assign(resolve, { asked });
}

/** A transport that answers every request with 200 "ok" and records what it was asked to send. */
export function fakeTransport(): FetchTransport & { readonly sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  const transport: FetchTransport = async (request) => {
    sent.push(request);
    return {
      status: 200,
      statusText: 'OK',
      headers: {},
      body: (async function* () {
        yield new TextEncoder().encode('ok');
      })(),
      cancel() {},
    };
  };
  return Object.assign(transport, { sent });
}

/** A signal that is never aborted. */
export function live(): AbortSignal {
  return new AbortController().signal;
}

/**
 * A temp folder with a project `project/` and a sibling `outside/secret.txt`. In the project:
 * `data/a.txt`, `data/sub/b.txt`, `secret/s.txt`, `out/` (empty), and links
 * `data/link-out` → outside/secret.txt, `data/link-secret` → project/secret/s.txt,
 * `data/link-dir` → outside/, `out/dangling` → outside/created.txt (missing).
 */
export interface Project {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  /** Every file under `outside/` with its content, to prove nothing there changed. */
  snapshotOutside(): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

export async function makeProject(): Promise<Project> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'toolhost-capabilities-'));
  const root = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  await fs.mkdir(path.join(root, 'data', 'sub'), { recursive: true });
  await fs.mkdir(path.join(root, 'secret'));
  await fs.mkdir(path.join(root, 'out'));
  await fs.mkdir(outside);
  await fs.writeFile(path.join(root, 'data', 'a.txt'), 'alpha\n');
  await fs.writeFile(path.join(root, 'data', 'sub', 'b.txt'), 'beta\n');
  await fs.writeFile(path.join(root, 'secret', 's.txt'), 'project secret\n');
  await fs.writeFile(path.join(outside, 'secret.txt'), SECRET);
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'data', 'link-out'));
  await fs.symlink(path.join(root, 'secret', 's.txt'), path.join(root, 'data', 'link-secret'));
  await fs.symlink(outside, path.join(root, 'data', 'link-dir'));
  await fs.symlink(path.join(outside, 'created.txt'), path.join(root, 'out', 'dangling'));
  return {
    base,
    root,
    outside,
    snapshotOutside: () => snapshot(outside),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await fs.readdir(dir)).sort()) {
    files[name] = await fs.readFile(path.join(dir, name), 'utf8');
  }
  return files;
}

/** A real HTTP server on 127.0.0.1 with a free port; `host` is what a grant names. */
export interface TestServer {
  readonly host: string;
  readonly origin: string;
  /** Paths requested so far, in order. */
  readonly requests: string[];
  /** Resolves with the next request's path once it has arrived. */
  nextRequest(): Promise<string>;
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const requests: string[] = [];
  let waiters: ((path: string) => void)[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push(url);
    const current = waiters;
    waiters = [];
    for (const waiter of current) waiter(url);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    host,
    origin: `http://${host}`,
    requests,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
