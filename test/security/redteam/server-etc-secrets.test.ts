import { chmod, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, resultText, type ToolHost } from '@toolhost/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * A stdio server's jail shows the system's `/etc` read-only, with password hashes, sudo rules
 * and SSH keys covered by name. Other secrets of `/etc` are kept from ordinary users by their
 * modes alone (TLS keys in /etc/ssl/private, VPN keys in /etc/wireguard, a database's
 * pg_hba.conf, /etc/security/opasswd): where the host runs as their owner, root in a container
 * most often, a server read every one of them. Every file of `/etc` that others may not read
 * (or that sits in a folder others may not enter) is covered now, whatever its name.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = path.resolve(here, '../../../node_modules');
const PROBE = path.resolve(here, '../../fixtures/servers/probe-server.mjs');
const SECRET = `/etc/toolhost-redteam-secret-${process.pid}.conf`;

let root: string;
let host: ToolHost | undefined;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-etc-secrets-')));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(root, { recursive: true, force: true });
  await rm(SECRET, { force: true });
});

describe.runIf(process.getuid?.() === 0)('a stdio server run by the owner of /etc', () => {
  it('cannot read a file of /etc that others may not read', async () => {
    await writeFile(SECRET, 'PrivateKey = not-for-servers\n', { mode: 0o600 });
    await chmod(SECRET, 0o600);
    host = await createHost({
      root,
      watch: false,
      cache: false,
      builtins: false,
      mcpServers: {
        probe: {
          command: process.execPath,
          args: [PROBE, path.join(NODE_MODULES, '@modelcontextprotocol', 'sdk')],
          sandbox: { fs: { read: [NODE_MODULES, path.dirname(PROBE)] } },
        },
      } as never,
    });
    const { result } = await host.session().call('mcp__probe__read', { path: SECRET });
    expect(resultText(result)).not.toContain('not-for-servers');
    // A world-readable file of /etc is still there.
    const hosts = await host.session().call('mcp__probe__read', { path: '/etc/hostname' });
    expect(hosts.result.isError).not.toBe(true);
  });
});
