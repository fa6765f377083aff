import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CapabilityProvider, createCapabilityProvider } from '../../src/capabilities/index.js';
import { live, makeProject, PLUGIN_ID, type Project } from './helpers.js';

/**
 * The provider's guard of the host's control files where they are not at their default places: a
 * config file kept in a folder (`conf/agent.json`), a plugins folder elsewhere (`tools/ext`). A
 * plugin granted the whole project may not write them, nor remove or replace a folder holding them.
 */
let project: Project;
const CONFIG = '{ "plugins": {} }\n';

beforeEach(async () => {
  project = await makeProject();
  await fs.mkdir(path.join(project.root, 'conf'));
  await fs.writeFile(path.join(project.root, 'conf', 'agent.json'), CONFIG);
  await fs.mkdir(path.join(project.root, 'tools', 'ext', 'hello'), { recursive: true });
  await fs.mkdir(path.join(project.root, 'staging', 'conf'), { recursive: true });
  await fs.writeFile(path.join(project.root, 'staging', 'conf', 'agent.json'), '{ "evil": true }');
});
afterEach(async () => {
  await project.cleanup();
});

function wholeProject(): CapabilityProvider {
  return createCapabilityProvider({
    pluginId: PLUGIN_ID,
    root: project.root,
    permissions: { fs: { write: ['.'] } },
    grants: { fs: { write: ['.'] } },
    controlPaths: { configFile: path.join(project.root, 'conf', 'agent.json'), pluginsDir: 'tools/ext' },
  });
}

/** The error plugin code would see: its `code` and message. */
async function refusal(capability: string, args: unknown): Promise<{ code: string; message: string }> {
  try {
    await wholeProject().invoke(capability, args, live());
  } catch (error) {
    return { code: (error as { pluginCode: string }).pluginCode, message: (error as Error).message };
  }
  throw new Error(`${capability} was not refused`);
}

describe('ctx.fs and control files at configured places', () => {
  it('refuses writing, reading and renaming onto a config file kept in a folder', async () => {
    for (const [capability, args] of [
      ['fs.writeFile', { path: 'conf/agent.json', data: '{}' }],
      ['fs.readFile', { path: 'conf/agent.json' }],
      ['fs.rename', { from: 'staging/conf/agent.json', to: 'conf/agent.json' }],
    ] as const) {
      const { code, message } = await refusal(capability, args);
      expect(code).toBe('control-file');
      expect(message).toContain(
        'path "conf/agent.json" is a host control file (the host config file conf/agent.json)',
      );
    }
    expect(await fs.readFile(path.join(project.root, 'conf', 'agent.json'), 'utf8')).toBe(CONFIG);
  });

  it('refuses removing or moving a folder that holds the config or the plugins folder, and moving a folder onto it', async () => {
    for (const [capability, args, shown] of [
      ['fs.rm', { path: 'conf', recursive: true }, 'conf'],
      ['fs.rename', { from: 'conf', to: 'moved' }, 'conf'],
      ['fs.rm', { path: 'tools', recursive: true }, 'tools'],
      ['fs.rename', { from: 'tools', to: 'moved' }, 'tools'],
    ] as const) {
      const { code, message } = await refusal(capability, args);
      expect(code).toBe('control-file');
      expect(message).toContain(`path "${shown}" holds a host control`);
    }
    await fs.rm(path.join(project.root, 'conf'), { recursive: true });
    // The config is gone for now: a folder moved into its place would become the config.
    const { code, message } = await refusal('fs.rename', { from: 'staging/conf', to: 'conf' });
    expect(code).toBe('control-file');
    expect(message).toContain('path "conf" holds a host control file');
    expect(await fs.readdir(path.join(project.root, 'tools', 'ext'))).toEqual(['hello']);
    expect(await fs.readdir(path.join(project.root, 'staging', 'conf'))).toEqual(['agent.json']);
  });

  it('still lets the plugin write elsewhere in the project', async () => {
    await wholeProject().invoke('fs.writeFile', { path: 'conf-notes.txt', data: 'ok' }, live());
    await wholeProject().invoke('fs.rename', { from: 'staging', to: 'staged' }, live());
    expect(await fs.readFile(path.join(project.root, 'conf-notes.txt'), 'utf8')).toBe('ok');
  });
});
