import { rm } from 'node:fs/promises';
import { internalsOf } from '@toolhost/host/internal';
import { context, defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { HostChange, HostError } from '../../src/host/types.js';
import { hiddenReasons, tempProject, visibleNames } from './helpers.js';

const project = tempProject();

/** The outcome of a reload that must have failed on the config. */
function configError(outcome: HostChange | HostError): Extract<HostError, { kind: 'config' }> {
  if (!('kind' in outcome) || outcome.kind !== 'config') throw new Error('expected a config error');
  return outcome;
}

describe('reload with a config file', () => {
  it('keeps the last good config when the file turns invalid, and applies it once fixed', async () => {
    await project.write({ tools: { deny: ['write'] } });
    const host = await project.start();
    const errors: HostError[] = [];
    const changes: HostChange[] = [];
    host.on('error', (error) => errors.push(error));
    host.on('change', (change) => changes.push(change));
    const version = host.version;

    const file = await project.write('{ "tools": { "deny": ["read"] ');
    const failed = await host.reload();
    expect(failed).toMatchObject({
      kind: 'config',
      issues: [{ file, path: '(root)', message: expect.stringMatching(/^not valid JSON/) }],
      message: expect.stringContaining(`${file}: (root): not valid JSON`),
    });
    expect(errors).toEqual([failed]);
    expect(changes).toEqual([]);
    expect(host.version).toBe(version);
    expect(host.config).toEqual({ tools: { deny: ['write'] } });
    expect(internalsOf(host).registry.tools.has('write')).toBe(false);
    expect(internalsOf(host).registry.tools.has('read')).toBe(true);
    const refused = await host.session().call('write', { path: 'x.txt', content: 'x' });
    expect(refused.result.isError).toBe(true);

    await project.write({ tools: { deny: ['read'] } });
    const change = await host.reload();
    expect(change).toMatchObject({ cause: 'reload', newlyVisible: ['write'] });
    expect((change as HostChange).newlyHidden).toEqual([
      { name: 'read', diagnostics: [expect.objectContaining({ reason: 'policy-denied' })] },
    ]);
    expect(changes).toEqual([change]);
    expect(errors).toHaveLength(1);
    expect(host.config).toEqual({ tools: { deny: ['read'] } });
    expect(visibleNames(host.plan())).toEqual(['edit', 'grep', 'ls', 'write']);
  });

  it('reports a config that is JSON but not valid, with every issue', async () => {
    await project.write({});
    const host = await project.start();
    const errors: HostError[] = [];
    host.on('error', (error) => errors.push(error));
    await project.write({ tools: { deny: 'write' }, sandboxx: 'inline' });
    const failed = configError(await host.reload());
    expect(failed.issues.map((i) => i.path).sort()).toEqual(['(root)', 'tools.deny']);
    expect(errors).toEqual([failed]);
    expect(host.config).toEqual({});
  });

  it('stops telling a listener about errors once it is disposed', async () => {
    await project.write({});
    const host = await project.start();
    const errors: HostError[] = [];
    const dispose = host.on('error', (error) => errors.push(error));
    await project.write('not json');
    await host.reload();
    dispose();
    await host.reload();
    expect(errors).toHaveLength(1);
  });

  it('reports a config file that was deleted, and keeps the last good config', async () => {
    const file = await project.write({ tools: { deny: ['write'] } }, 'custom.json');
    const host = await project.start({ configFile: 'custom.json' });
    await rm(file);
    expect(await host.reload()).toMatchObject({
      kind: 'config',
      issues: [
        { file, path: '(root)', message: 'the config file is gone; the last good config stays in force' },
      ],
    });
    expect(internalsOf(host).registry.tools.has('write')).toBe(false);
  });

  it('rebuilds built-ins from the reloaded config', async () => {
    await project.write({});
    const host = await project.start();
    expect(internalsOf(host).registry.tools.has('exec')).toBe(false);
    await project.write({ builtins: { exec: { enabled: true } } });
    expect(await host.reload()).toMatchObject({ cause: 'reload', added: ['exec'] });
    expect(internalsOf(host).registry.tools.has('exec')).toBe(true);
  });

  it('gives a session made before the reload the new signals.context', async () => {
    const cliOnly = defineTool({
      name: 'cli_only',
      description: 'Visible in the cli channel',
      input: z.object({}),
      availability: context('channel', 'cli'),
      execute: () => 'ok',
    });
    await project.write({ signals: { context: { channel: 'cli' } } });
    const host = await project.start({ customTools: [cliOnly] });
    const session = host.session();
    expect(session.descriptors().map((d) => d.name)).toContain('cli_only');
    await project.write({ signals: { context: { channel: 'web' } } });
    await host.reload();
    expect(hiddenReasons(host.session().plan()).get('cli_only')).toEqual(['context-mismatch']);
    // The default context is the config's, not a copy taken when the session was made.
    expect(hiddenReasons(session.plan()).get('cli_only')).toEqual(['context-mismatch']);
  });
});
