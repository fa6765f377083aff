import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { type HostOptions, resultText, type ToolHost, type ToolhostConfigInput } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { useHosts } from '../plugins/project.js';

/** A config that touches every kind of key: built-ins, policy, limits, plugins, signals. */
const CONFIG = {
  builtins: { maxReadBytes: 4096, exec: { enabled: true, allowedCommands: [process.execPath] } },
  tools: { deny: ['write'] },
  limits: { timeoutMs: 5_000, plugin: { memoryMb: 32 } },
  plugins: {
    healthy: { enabled: false },
    envreader: { grants: { env: ['TOOLHOST_TEST_API_KEY'] } },
  },
  signals: { env: ['TOOLHOST_TEST_API_KEY'], context: { channel: 'cli' } },
} as const satisfies ToolhostConfigInput;

/** The same code-only options for every host, so only where the config comes from differs. */
const CODE: HostOptions = { sandbox: 'inline', cache: false };

const h = useHosts();

/** What a host offers and does: its config, its plan, its tools for a model, and two calls. */
async function behaviour(host: ToolHost) {
  const session = host.session();
  const denied = await session.call('write', { path: 'x.txt', content: 'x' });
  const granted = await session.call('read_key', {});
  return {
    config: host.config,
    plan: host.plan(),
    tools: session.tools('anthropic'),
    denied: [denied.status, resultText(denied.result)],
    granted: [granted.status, resultText(granted.result)],
  };
}

describe('createHost: the config file passed as an object gives the same host', () => {
  it('file alone, the same object in code alone, and both at once: same config, plan, tools and calls', async () => {
    const withFile = await h.project(['healthy', 'envreader']);
    await writeFile(path.join(withFile.root, 'toolhost.config.json'), JSON.stringify(CONFIG));
    const withoutFile = await h.project(['healthy', 'envreader']);

    // hostFor turns built-ins off unless told: here the file decides.
    const fromFile = await behaviour(await h.hostFor(withFile.root, { builtins: undefined, ...CODE }));
    const fromCode = await behaviour(await h.hostFor(withoutFile.root, { ...CODE, ...CONFIG }));
    const fromBoth = await behaviour(await h.hostFor(withFile.root, { ...CODE, ...CONFIG }));

    // The config is really in force, not just equal: write is denied, exec exists, healthy is off.
    expect(fromFile.denied[1]).toContain('tools.deny');
    expect(fromFile.tools.map((t) => t.name)).toContain('exec');
    expect(fromFile.plan.hidden.map((e) => [e.descriptor.name, e.diagnostics[0]?.reason])).toContainEqual([
      'healthy_echo',
      'plugin-disabled',
    ]);
    expect(fromCode).toEqual(fromFile);
    expect(fromBoth).toEqual(fromFile);
  });
});
