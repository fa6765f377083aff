import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  hiddenEntry,
  type PluginSettings,
  projectWith,
  type TestProject,
  visibleNames,
} from '../../_testing/host.js';

/** A tool outside the plugin, to show which calls the plugin's hooks see. */
const shout = defineTool({
  name: 'shout',
  description: 'Returns the text in upper case',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text.toUpperCase(),
});

let project: TestProject;

beforeEach(async () => {
  project = await projectWith('audit');
});

afterEach(async () => {
  await project.dispose();
});

const start = (settings?: PluginSettings) =>
  project.host({ customTools: [shout], ...(settings === undefined ? {} : { settings }) });

const texts = (result: { content: readonly { type: string; text?: string }[] }) =>
  result.content.map((block) => block.text);

describe('audit plugin', () => {
  it('loads with defaults and tags its own results', async () => {
    const host = await start();
    expect(host.plugins[0]).toMatchObject({ id: 'audit', status: 'loaded', diagnostics: [] });
    expect(host.plugins[0]?.manifest?.hooks).toEqual({ before: true, after: true });
    expect(visibleNames(host)).toEqual(['audit_echo', 'shout']);
    const { result, status } = await host.session().call('audit_echo', { text: 'hello' });
    expect(status).toBe('ok');
    expect(texts(result)).toEqual(['hello', '[audit] audit_echo ok']);
  });

  it('uses the configured tag', async () => {
    const host = await start({ config: { tag: 'review' } });
    const { result } = await host.session().call('audit_echo', { text: 'hello' });
    expect(texts(result)).toEqual(['hello', '[review] audit_echo ok']);
  });

  it('blocks a call whose input contains a blocked word, ignoring case', async () => {
    const host = await start({ config: { blockedWords: ['Password', 'token'] } });
    const s = host.session();
    const blocked = await s.call('audit_echo', { text: 'my PASSWORD is hunter2' });
    expect(blocked.status).toBe('blocked');
    expect(blocked.result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text:
            'Tool "audit_echo" was blocked by hook "plugin:audit": its input contains the blocked word ' +
            '"Password" (plugins.audit.config.blockedWords)',
        },
      ],
    });
    const allowed = await s.call('audit_echo', { text: 'nothing to see' });
    expect(texts(allowed.result)).toEqual(['nothing to see', '[audit] audit_echo ok']);
  });

  it('refuses input its schema rejects, in its own words, before any hook runs (so no audit line)', async () => {
    const host = await start();
    const { result, status } = await host.session().call('audit_echo', { text: 42 });
    expect(status).toBe('invalid-input');
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual(['Invalid input for tool "audit_echo": at "text": text must be a string']);
  });

  describe('hook scope', () => {
    it('leaves other tools alone by default', async () => {
      const host = await start({ config: { blockedWords: ['secret'] } });
      const { result, status } = await host.session().call('shout', { text: 'a secret' });
      expect(status).toBe('ok');
      expect(texts(result)).toEqual(['A SECRET']);
    });

    it("sees every tool's calls with hooks: 'all'", async () => {
      const host = await start({ config: { blockedWords: ['secret'] }, hooks: 'all' });
      const s = host.session();
      const blocked = await s.call('shout', { text: 'a secret' });
      expect(blocked.status).toBe('blocked');
      expect(texts(blocked.result)).toEqual([
        'Tool "shout" was blocked by hook "plugin:audit": its input contains the blocked word "secret" ' +
          '(plugins.audit.config.blockedWords)',
      ]);
      const tagged = await s.call('shout', { text: 'hi' });
      expect(texts(tagged.result)).toEqual(['HI', '[audit] shout ok']);
    });
  });

  describe('config', () => {
    it('hides its tools with a diagnostic naming the key of an invalid value', async () => {
      const host = await start({ config: { blockedWords: 'password' }, hooks: 'all' });
      expect(host.plugins[0]).toMatchObject({ id: 'audit', status: 'failed' });
      expect(visibleNames(host)).toEqual(['shout']);
      const message =
        'plugin "audit" has an invalid config: plugins.audit.config.blockedWords: blockedWords must be a list of words. ' +
        'Fix: correct plugins.audit.config in toolhost.config.json, shaped { blockedWords?: string[], tag?: string }';
      expect(host.plugins[0]?.diagnostics).toEqual([message]);
      expect(hiddenEntry(host, 'audit_echo')?.diagnostics).toEqual([
        { reason: 'plugin-load-failed', message },
      ]);
      // A plugin that did not load has no hooks either.
      const { result } = await host.session().call('shout', { text: 'password' });
      expect(texts(result)).toEqual(['PASSWORD']);
    });

    it('reports every invalid key, with the messages of its schema', async () => {
      const host = await start({ config: { blockedWords: ['ok', '  '], tag: 'no spaces' } });
      expect(hiddenEntry(host, 'audit_echo')?.diagnostics[0]?.message).toBe(
        'plugin "audit" has an invalid config: ' +
          'plugins.audit.config.blockedWords.1: a blocked word must not be empty; ' +
          'plugins.audit.config.tag: tag must be 1-32 letters, digits, "_", "-" or ".". ' +
          'Fix: correct plugins.audit.config in toolhost.config.json, shaped { blockedWords?: string[], tag?: string }',
      );
    });

    it('is disabled by enabled: false, hooks included', async () => {
      const host = await start({ enabled: false, config: { blockedWords: ['secret'] }, hooks: 'all' });
      expect(hiddenEntry(host, 'audit_echo')?.diagnostics).toEqual([
        {
          reason: 'plugin-disabled',
          message: 'plugin "audit" is disabled in config (plugins.audit.enabled: false)',
        },
      ]);
      const { result } = await host.session().call('shout', { text: 'secret' });
      expect(texts(result)).toEqual(['SECRET']);
    });
  });
});
