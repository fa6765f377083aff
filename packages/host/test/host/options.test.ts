import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { defineTool, env } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigError } from '../../src/config/load.js';
import { resultText } from '../../src/core/wrap/results.js';
import type { HostOptions } from '../../src/host/types.js';
import { hiddenReasons, rejectionOf, tempProject, visibleNames } from '../config/helpers.js';

const project = tempProject();

/** The issues `createHost` refused `options` with (given untyped, as JavaScript would). */
async function issuesOf(options: unknown) {
  const error = await rejectionOf(project.start(options as HostOptions));
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues;
}

describe('createHost takes the config file shape', () => {
  it('applies tools.deny given in code (it used to be ignored, leaving write visible)', async () => {
    const host = await project.start({ tools: { deny: ['write'] } });
    expect(hiddenReasons(host.plan()).get('write')).toEqual(['policy-denied']);
    expect(visibleNames(host.plan())).not.toContain('write');
  });

  it('takes plugins.<id>, sandbox and limits.plugin as the file does', async () => {
    const host = await project.start({
      sandbox: 'inline',
      plugins: { weather: { grants: { net: ['api.open-meteo.com'] } } },
      limits: { plugin: { memoryMb: 32 } },
    });
    expect(host.config).toMatchObject({
      sandbox: 'inline',
      plugins: { weather: { grants: { net: ['api.open-meteo.com'] } } },
      limits: { plugin: { memoryMb: 32 } },
    });
  });

  it('accepts a plugin whose id is an old option name (plugins.sandbox is a plugin here)', async () => {
    const host = await project.start({ plugins: { sandbox: { enabled: false } } });
    expect(host.config.plugins).toEqual({ sandbox: { enabled: false } });
  });
});

describe('createHost refuses an unknown key, naming it and what it is probably meant to be', () => {
  it.each([
    [
      { policy: { deny: ['write'] } },
      'policy',
      'unknown option; the allow/deny lists are `tools: { allow, deny }`',
    ],
    [{ tool: { deny: ['write'] } }, 'tool', 'did you mean "tools"?'],
    [{ watchh: true }, 'watchh', 'did you mean "watch"?'],
    [{ customtools: [] }, 'customtools', 'did you mean "customTools"?'],
    [{ config: { tools: {} } }, 'config', 'a config file is `configFile: "path"`'],
    [{ plugins: false }, 'plugins', '`plugins: false` is now `pluginsDir: false`'],
    [{ plugins: { settings: { weather: { grants: {} } } } }, 'plugins.settings', 'is now `plugins.<id>`'],
    [{ plugins: { sandbox: 'inline' } }, 'plugins.sandbox', 'the top-level `sandbox` key'],
    [{ plugins: { limits: { memoryMb: 32 } } }, 'plugins.limits', '`limits.plugin`'],
    [{ plugins: { dir: 'ext' } }, 'plugins.dir', 'the `pluginsDir` option'],
    [{ plugins: { cache: false } }, 'plugins.cache', 'the `cache` option'],
    [{ mcp: { callTimeoutMs: 5 } }, 'mcp.callTimeoutMs', '`limits.mcpCallTimeoutMs`'],
    [{ limits: { timeout: 5 } }, 'limits', 'unknown key(s): timeout (did you mean "timeoutMs"?)'],
    [
      { builtins: { exec: { enable: true } } },
      'builtins.exec',
      'unknown key(s): enable (did you mean "enabled"?)',
    ],
    [{ xyzzy: 1 }, 'xyzzy', 'neither a toolhost.config.json key ($schema, builtins, tools'],
  ])('%j', async (options, where, says) => {
    const issues = await issuesOf(options);
    expect(issues).toEqual([
      { file: 'createHost options', path: where, message: expect.stringContaining(says) },
    ]);
  });

  it('checks the code-only options too, and lists every problem at once', async () => {
    const issues = await issuesOf({ watch: 'yes', root: 3, policy: {}, tools: { deny: 'write' } });
    expect(issues.map((i) => i.path).sort()).toEqual(['policy', 'root', 'tools.deny', 'watch']);
  });

  it('refuses an empty skillsDir or pluginsDir, saying it names no folder (it would be the root itself)', async () => {
    for (const key of ['skillsDir', 'pluginsDir']) {
      const issues = await issuesOf({ [key]: '' });
      expect(issues).toEqual([
        expect.objectContaining({
          path: key,
          message: expect.stringMatching(/an empty string names no folder.*relative to the root.*false/),
        }),
      ]);
    }
  });

  it('says where the problem is in the error message', async () => {
    const error = await rejectionOf(project.start({ policy: { deny: ['write'] } } as unknown as HostOptions));
    expect((error as Error).message).toContain('createHost options: policy: unknown option;');
  });
});

describe('code-only options still work beside the config keys', () => {
  it('root, configFile, customTools, hooks and availability, with the file laid under the code', async () => {
    await mkdir(path.join(project.dir, 'conf'));
    await project.write({ tools: { deny: ['write'] }, builtins: { maxReadBytes: 10 } }, 'conf/agent.json');
    const needsKey = defineTool({
      name: 'needs_key',
      description: 'Visible when KEY is set',
      input: z.object({}),
      availability: env('KEY'),
      execute: () => 'ran',
    });
    const host = await project.start({
      configFile: 'conf/agent.json',
      tools: { deny: ['edit'] },
      customTools: [needsKey],
      hooks: [
        {
          name: 'no-ls',
          beforeToolCall: (e) => (e.toolName === 'ls' ? { block: true, reason: 'no' } : undefined),
        },
      ],
      availability: { env: { KEY: '1' } },
    });
    expect(visibleNames(host.plan())).toEqual(['grep', 'ls', 'needs_key', 'read']);
    expect(host.config).toEqual({ tools: { deny: ['write', 'edit'] }, builtins: { maxReadBytes: 10 } });
    const session = host.session();
    expect(resultText((await session.call('needs_key', {})).result)).toBe('ran');
    expect(resultText((await session.call('ls', {})).result)).toContain('no');
  });

  it('setPolicy replaces the tools given in code, still over the file, and checks them', async () => {
    await project.write({ tools: { deny: ['write'] } });
    const host = await project.start({ tools: { deny: ['edit'] } });
    host.setPolicy({ allow: ['read', 'write', 'ls'] });
    expect(visibleNames(host.plan())).toEqual(['ls', 'read']);
    expect(() => host.setPolicy({ deny: 'ls' } as unknown as { deny: string[] })).toThrow(
      /createHost options: tools\.deny: /,
    );
  });
});
