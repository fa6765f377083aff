import * as path from 'node:path';
import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import type { HostOptions } from '../../src/host/types.js';
import { hiddenReasons, rejectionOf, tempProject } from './helpers.js';

const project = tempProject();

describe('createHost with a config', () => {
  it('refuses to start on an invalid toolhost.config.json, naming the file, the path and the reason', async () => {
    const file = await project.write({ plugins: { notes: { grantz: {} } }, limits: { timeoutMs: -1 } });
    const error = await rejectionOf(project.start());
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({
      name: 'ConfigError',
      code: 'invalid-config',
      issues: expect.arrayContaining([
        { file, path: 'plugins.notes', message: 'unknown key(s): grantz (did you mean "grants"?)' },
        { file, path: 'limits.timeoutMs', message: expect.any(String) },
      ]),
    });
    const { message } = error as ConfigError;
    expect(message).toContain(`${file}: plugins.notes: unknown key(s): grantz (did you mean "grants"?)`);
    expect(message).toContain(`${file}: limits.timeoutMs:`);
  });

  it('refuses to start on a JSON syntax error', async () => {
    await project.write('{ "tools": ');
    expect(await rejectionOf(project.start())).toMatchObject({
      code: 'invalid-config',
      issues: [{ path: '(root)', message: expect.stringMatching(/^not valid JSON/) }],
    });
  });

  it('starts with an empty config when the default file is absent', async () => {
    const host = await project.start();
    expect(host.config).toEqual({});
    expect(internalsOf(host).registry.tools.has('read')).toBe(true);
  });

  it('rejects an explicit config path that does not exist', async () => {
    const error = await rejectionOf(project.start({ configFile: 'missing.json' }));
    expect(error).toMatchObject({
      code: 'invalid-config',
      issues: [
        {
          file: path.join(project.dir, 'missing.json'),
          path: '(root)',
          message: 'the config file does not exist',
        },
      ],
    });
  });

  it('reads an explicit config path relative to the root', async () => {
    await project.write({ tools: { deny: ['write'] } }, 'custom.json');
    const host = await project.start({ configFile: 'custom.json' });
    expect(host.config).toEqual({ tools: { deny: ['write'] } });
    expect(internalsOf(host).registry.tools.has('write')).toBe(false);
  });

  it('takes the config keys in code, and with configFile: false ignores the default file', async () => {
    await project.write({ tools: { deny: ['read'] } });
    const host = await project.start({ configFile: false, tools: { deny: ['write'] } });
    expect(hiddenReasons(host.plan()).get('write')).toEqual(['policy-denied']);
    expect(internalsOf(host).registry.tools.has('read')).toBe(true);
  });

  it('validates the config keys given in code as strictly as a file', async () => {
    const config: unknown = { tools: { deny: ['write'], alow: ['read'] } };
    expect(await rejectionOf(project.start(config as HostOptions))).toMatchObject({
      code: 'invalid-config',
      issues: [
        {
          file: 'createHost options',
          path: 'tools',
          message: 'unknown key(s): alow (did you mean "allow"?)',
        },
      ],
    });
  });
});
