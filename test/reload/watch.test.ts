import { rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginSource, watchedProject } from './harness.js';

type Project = Awaited<ReturnType<typeof watchedProject>>;

describe('hot reload with the real watcher', () => {
  let project: Project;

  afterEach(async () => {
    await project.close();
  });

  async function started(): Promise<Project> {
    project = await watchedProject();
    await project.writePlugin('alpha', pluginSource('alpha', 'alpha_tool', "'alpha v1'"));
    await project.writePlugin('steady', pluginSource('steady', 'steady_tool', "'steady'"));
    await project.start({});
    expect((await project.call('alpha_tool')).text).toBe('alpha v1');
    return project;
  }

  it('adds a plugin folder without a restart', async () => {
    await started();
    const change = project.nextChange((c) => c.added.includes('beta_tool'));
    await project.writePlugin('beta', pluginSource('beta', 'beta_tool', "'beta v1'"));
    expect(await change).toMatchObject({ added: ['beta_tool'], removed: [], newlyVisible: ['beta_tool'] });
    expect((await project.call('beta_tool')).text).toBe('beta v1');
  });

  it('changes a plugin: the diff names the tool and the next call runs the new code', async () => {
    await started();
    const change = project.nextChange((c) => c.changed.includes('alpha_tool') || c.cause.includes('alpha'));
    await project.writePlugin(
      'alpha',
      pluginSource('alpha', 'alpha_tool', "'alpha v2'").replace(
        'reload test tool',
        'reload test tool, edited',
      ),
    );
    const seen = await change;
    expect(seen.changed).toEqual(['alpha_tool']);
    expect(seen.cause).toContain('plugins:alpha');
    // The whole-Map part of the rebuild is timed apart from the refresh (bundle, describe) before it.
    expect(seen.swapMs).toBeGreaterThan(0);
    expect(seen.swapMs).toBeLessThan(seen.durationMs);
    expect((await project.call('alpha_tool')).text).toBe('alpha v2');
  });

  it('breaks a plugin: its tools are hidden with the build error, the rest keeps serving; a fix brings it back', async () => {
    await started();
    const broken = project.nextChange((c) => c.newlyHidden.some((h) => h.name === 'alpha_tool'));
    await project.writePlugin('alpha', 'export default definePlugin({ id: "alpha", tools: [ }');
    const hidden = await broken;
    const diagnostic = hidden.newlyHidden.find((h) => h.name === 'alpha_tool')?.diagnostics[0];
    expect(diagnostic?.reason).toBe('plugin-load-failed');
    expect(diagnostic?.message).toMatch(/does not build: index\.ts:1:\d+/);
    expect((await project.call('alpha_tool')).text).toContain('plugin-load-failed');
    expect((await project.call('steady_tool')).text).toBe('steady');

    const fixed = project.nextChange((c) => c.newlyVisible.includes('alpha_tool'));
    await project.writePlugin('alpha', pluginSource('alpha', 'alpha_tool', "'alpha fixed'"));
    await fixed;
    expect((await project.call('alpha_tool')).text).toBe('alpha fixed');
  });

  it('deletes a plugin: its tools are removed', async () => {
    await started();
    const change = project.nextChange((c) => c.removed.includes('alpha_tool'));
    await rm(path.join(project.root, 'plugins', 'alpha'), { recursive: true });
    expect((await change).removed).toEqual(['alpha_tool']);
    expect((await project.call('alpha_tool')).text).toMatch(/^Unknown tool "alpha_tool"/);
    expect((await project.call('steady_tool')).text).toBe('steady');
  });

  it('renames a plugin folder: the old id goes, the new folder is checked against its id', async () => {
    await started();
    const mismatch = project.nextChange(
      (c) => c.added.includes('alpha_tool') === false && c.newlyHidden.some((h) => h.name === 'alpha_tool'),
    );
    await rename(path.join(project.root, 'plugins', 'alpha'), path.join(project.root, 'plugins', 'gamma'));
    const change = await mismatch;
    expect(change.newlyHidden.find((h) => h.name === 'alpha_tool')?.diagnostics[0]?.message).toMatch(
      /plugins\/gamma\/ declares id "alpha"; the id must match the folder name/,
    );
    const fixed = project.nextChange((c) => c.newlyVisible.includes('gamma_tool'));
    await project.writePlugin('gamma', pluginSource('gamma', 'gamma_tool', "'gamma'"));
    const after = await fixed;
    expect(after.removed).toContain('alpha_tool');
    expect((await project.call('gamma_tool')).text).toBe('gamma');
  });

  it('disables and re-enables a plugin from the config file', async () => {
    await started();
    const off = project.nextChange((c) => c.newlyHidden.some((h) => h.name === 'alpha_tool'));
    await project.writeConfig({ plugins: { alpha: { enabled: false } } });
    const hidden = await off;
    expect(hidden.cause).toContain('config');
    expect(hidden.newlyHidden.find((h) => h.name === 'alpha_tool')?.diagnostics[0]?.reason).toBe(
      'plugin-disabled',
    );
    expect((await project.call('alpha_tool')).isError).toBe(true);
    const on = project.nextChange((c) => c.newlyVisible.includes('alpha_tool'));
    await project.writeConfig({ plugins: { alpha: { enabled: true } } });
    await on;
    expect((await project.call('alpha_tool')).text).toBe('alpha v1');
  });

  it('grants and revokes a permission, and changes a plugin config, without a restart', async () => {
    project = await watchedProject();
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(path.join(project.root, 'data'));
    await writeFile(path.join(project.root, 'data', 'note.txt'), 'secret note');
    await project.writePlugin(
      'reader',
      pluginSource(
        'reader',
        'reader_tool',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: plugin source, evaluated in the sandbox
        "`${(ctx.config as { prefix: string }).prefix}: ${await ctx.fs.readFile('data/note.txt')}`",
        "permissions: { fs: { read: ['data'] } }, config: z.object({ prefix: z.string() }),",
      ),
    );
    await project.start({ plugins: { reader: { config: { prefix: 'one' } } } });
    const denied = await project.call('reader_tool');
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/permissions\.fs\.read.*plugins\.reader\.grants\.fs\.read/);

    const granted = project.nextChange((c) => c.cause.includes('config'));
    await project.writeConfig({
      plugins: { reader: { config: { prefix: 'two' }, grants: { fs: { read: ['data'] } } } },
    });
    await granted;
    expect(await project.call('reader_tool')).toEqual({ text: 'two: secret note', isError: false });

    const revoked = project.nextChange((c) => c.cause.includes('config'));
    await project.writeConfig({ plugins: { reader: { config: { prefix: 'two' } } } });
    await revoked;
    expect((await project.call('reader_tool')).isError).toBe(true);
  });

  it('keeps the last good config when the file stops validating, and reports it', async () => {
    await started();
    const errors: unknown[] = [];
    const reported = new Promise<void>((resolve) =>
      project.host.on('error', (error) => {
        errors.push(error);
        resolve();
      }),
    );
    await project.writeConfig('{ "plugins": { "alpha": { "enabled": false, "typo": 1 } } }');
    await reported;
    expect(errors[0]).toMatchObject({
      kind: 'config',
      issues: [expect.objectContaining({ path: 'plugins.alpha' })],
    });
    expect((await project.call('alpha_tool')).text).toBe('alpha v1');
  });
});

describe('the plugins folder itself', () => {
  let project: Project;
  afterEach(async () => {
    await project.close();
  });

  it('is watched again after it is deleted and re-created (a checkout of a branch without it)', async () => {
    project = await watchedProject();
    await project.writePlugin('alpha', pluginSource('alpha', 'alpha_tool', "'v1'"));
    await project.start({});
    const gone = project.nextChange((c) => c.removed.includes('alpha_tool'));
    await rm(path.join(project.root, 'plugins'), { recursive: true });
    await gone;
    const back = project.nextChange((c) => c.added.includes('alpha_tool'));
    await project.writePlugin('alpha', pluginSource('alpha', 'alpha_tool', "'v2'"));
    await back;
    expect((await project.call('alpha_tool')).text).toBe('v2');
    const edited = project.nextChange((c) => c.cause.includes('alpha'));
    await project.writePlugin('alpha', pluginSource('alpha', 'alpha_tool', "'v3'"));
    await edited;
    expect((await project.call('alpha_tool')).text).toBe('v3');
  });

  it('turning into something unreadable is reported, and the host keeps serving', async () => {
    project = await watchedProject();
    await project.writePlugin('alpha', pluginSource('alpha', 'alpha_tool', "'v1'"));
    await project.start({});
    const reported = new Promise<unknown>((resolve) => project.host.on('error', resolve));
    const { writeFile } = await import('node:fs/promises');
    await rm(path.join(project.root, 'plugins'), { recursive: true });
    await writeFile(path.join(project.root, 'plugins'), 'not a folder');
    await project.writeConfig({ tools: { deny: ['nothing'] } });
    expect(await reported).toMatchObject({
      kind: 'load',
      message: expect.stringMatching(/rebuild .* failed: ENOTDIR/),
    });
  });
});
