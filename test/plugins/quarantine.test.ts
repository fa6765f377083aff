import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { createHost, type HostChange, type ToolHost } from '@toolhost/host';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListJson } from '../../packages/host/src/cli/types.js';
import { project, toolhost } from '../cli/cli.js';
import { textOf } from './project.js';

/** The next change event of `host` that `test` accepts. */
function nextChange(host: ToolHost, test: (change: HostChange) => boolean): Promise<HostChange> {
  return new Promise((resolve) => {
    const stop = host.on('change', (change) => {
      if (!test(change)) return;
      stop();
      resolve(change);
    });
  });
}

const openHost = (root: string) =>
  createHost({ root, builtins: false, availability: { env: {} }, cache: false });

describe('a plugin that keeps crashing the executor process', () => {
  let host: ToolHost | undefined;
  let dispose: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await host?.close();
    await dispose?.();
  });

  it('is quarantined visibly: hidden in the plan, list --json and doctor, with a rebuild at start and lift', async () => {
    // Settings in the config file, so that the CLI below loads the plugin exactly the same way.
    const made = await project(['crasher', 'healthy'], {
      plugins: { crasher: { limits: { memoryMb: 16, timeoutMs: 60_000, cpuMs: 60_000 } } },
    });
    dispose = made.dispose;
    const root = made.root;
    host = await openHost(root);
    const session = host.session();

    const quarantined = nextChange(host, (c) => c.cause === 'quarantine:crasher');
    for (let i = 0; i < 3; i++) {
      const outcome = await session.call('crash_keys', {});
      expect(textOf(outcome.result)).toMatch(/the executor process died \(signal SIGABRT\)/);
    }
    const started = await quarantined;
    expect(started.newlyHidden.map((h) => [h.name, h.diagnostics.map((d) => d.reason)])).toEqual([
      ['crash_array', ['quarantined']],
      ['crash_keys', ['quarantined']],
    ]);
    const message =
      /^plugin "crasher" is quarantined: it crashed the executor process 3 times \(last: the executor process died \(signal SIGABRT\) while it was running\); it runs again once plugins\/crasher\/ or its settings change, or after a reload$/;
    const hidden = host.plan().hidden.filter((e) => e.descriptor.owner.kind === 'plugin');
    expect(hidden.map((e) => e.descriptor.name)).toEqual(['crash_array', 'crash_keys']);
    for (const entry of hidden) {
      expect(entry.diagnostics).toEqual([{ reason: 'quarantined', message: expect.stringMatching(message) }]);
    }
    expect(host.plan().visible.map((e) => e.descriptor.name)).toEqual(['healthy_echo']);
    expect(host.plugins.find((p) => p.id === 'crasher')).toMatchObject({ status: 'quarantined' });
    const refused = await session.call('crash_keys', {});
    expect(refused.status).toBe('blocked');
    expect(textOf(refused.result)).toMatch(/is not available: quarantined: plugin "crasher" is quarantined/);
    await host.close();
    host = undefined;

    // It is written down, so a new process knows: the CLI shows it, and the fix.
    const saved = JSON.parse(await readFile(path.join(root, '.toolhost', 'quarantine.json'), 'utf8'));
    expect(saved.plugins.crasher).toMatchObject({ crashes: 3 });
    const list = await toolhost(['list', '--json', '--root', root], { timeoutMs: 60_000 });
    expect(list.code).toBe(0);
    const json = JSON.parse(list.stdout) as ListJson;
    expect(json.plugins.find((p) => p.id === 'crasher')).toEqual({
      id: 'crasher',
      status: 'quarantined',
      diagnostics: [expect.stringMatching(message)],
    });
    expect(json.hidden.find((h) => h.name === 'crash_keys')?.diagnostics).toEqual([
      { reason: 'quarantined', message: expect.stringMatching(message) },
    ]);
    expect(json.visible.filter((t) => t.owner.startsWith('plugin:')).map((t) => t.name)).toEqual([
      'healthy_echo',
    ]);
    const doctor = await toolhost(['doctor', '--root', root], { timeoutMs: 60_000 });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      '✖ plugin crasher: is quarantined after crashing the executor process; its tools are hidden\n',
    );
    expect(doctor.stdout).toContain(
      '    fix: find what makes it crash (memory, deep recursion), then edit plugins/crasher/ or ' +
        'plugins.crasher.limits: the changed plugin is tried again. To try it unchanged, reload the ' +
        'running host or delete .toolhost/quarantine.json\n',
    );
    expect(doctor.stdout).not.toContain('tool crash_keys');

    // A reload lifts it, with a rebuild that shows the tools again.
    host = await openHost(root);
    expect(host.plugins.find((p) => p.id === 'crasher')?.status).toBe('quarantined');
    const lifted = await host.reload();
    expect(lifted).toMatchObject({ cause: 'reload', newlyVisible: ['crash_array', 'crash_keys'] });
    expect(host.plugins.find((p) => p.id === 'crasher')?.status).toBe('loaded');
    await host.close();
    host = undefined;
    const after = JSON.parse(await readFile(path.join(root, '.toolhost', 'quarantine.json'), 'utf8'));
    expect(after.plugins).toEqual({});
  }, 120_000);
});
