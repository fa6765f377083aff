import { createHost } from '@toolhost/host';
import { afterEach, describe, expect, it } from 'vitest';
import { project, textOf } from './project.js';

describe('env grants', () => {
  afterEach(() => {
    delete process.env.TOOLHOST_TEST_API_KEY;
  });

  it('read the real environment, whatever signals.env shows to availability checks', async () => {
    process.env.TOOLHOST_TEST_API_KEY = 'k-123';
    const made = await project(['envreader']);
    const host = await createHost({
      root: made.root,
      builtins: false,
      configFile: false,
      signals: { env: ['SOMETHING_ELSE'] },
      plugins: { envreader: { grants: { env: ['TOOLHOST_TEST_API_KEY'] } } },
      sandbox: 'inline',
      cache: false,
    });
    try {
      expect(textOf((await host.session().call('read_key', {})).result)).toBe('key=k-123');
    } finally {
      await host.close();
      await made.cleanup();
    }
  });
});
