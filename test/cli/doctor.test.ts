import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANSI, project, REPO, toolhostInProcess } from './cli.js';

const notes = { from: path.join(REPO, 'plugins/notes') };

/** Runs doctor on a fresh project and cleans up. */
async function doctor(plugins: Parameters<typeof project>[0], config?: unknown) {
  const { root, dispose } = await project(plugins, config);
  try {
    return await toolhostInProcess(['doctor', '--root', root], { cwd: root });
  } finally {
    await dispose();
  }
}

describe.concurrent('toolhost doctor', () => {
  it('exits 0 when all is well', async () => {
    const { code, stdout, stderr } = await doctor(['healthy', notes], {
      plugins: { notes: { grants: { fs: { read: ['notes'], write: ['notes'] } } } },
    });
    expect(stderr).toBe('');
    expect(stdout).toContain('✔ config: toolhost.config.json is valid');
    expect(stdout).toContain('✔ plugin healthy: builds and loads (1 tool)');
    expect(stdout).toContain('✔ plugin notes: builds and loads (3 tools)');
    expect(stdout).toContain(
      "✔ control files: closed (the default): built-in tools cannot write the config file, plugins/, skills/, .toolhost/ or the host's own code, nor read the config",
    );
    expect(stdout).toMatch(/All is well\.\n$/);
    expect(stdout).not.toMatch(ANSI);
    expect(code).toBe(0);
  });

  it('warns about a plugin tool refused a built-in name, naming the key that would allow it', async () => {
    const { stdout } = await doctor(['clashes-builtin']);
    expect(stdout).toContain(
      '⚠ tool read: tool "read" of plugin:clashes-builtin is hidden: "read" is the name of a built-in tool, which keeps it; ' +
        'to let plugin "clashes-builtin" replace the built-in, add "read" to plugins.clashes-builtin.overrides',
    );
  });

  it('says how many plugin isolates are live and the isolates settings in force', async () => {
    const { code, stdout } = await doctor(['healthy'], { isolates: { maxLive: 50, idleSeconds: 120 } });
    expect(stdout).toContain('isolates: 0 live (at most 50; one idle for 120 s is disposed)');
    expect(code).toBe(0);
  });

  it('says whether the processes poll, and why: the config, or the default for the CPUs here', async () => {
    const { availableParallelism } = await import('node:os');
    const cpus = availableParallelism();
    const set = await doctor(['healthy'], { sandbox: { pollMicros: 250 } });
    expect(set.stdout).toContain('polling: up to 250 µs, from sandbox.pollMicros: ');
    const off = await doctor(['healthy'], { sandbox: { pollMicros: 0 } });
    expect(off.stdout).toContain('polling: off, from sandbox.pollMicros: ');
    const unset = await doctor(['healthy']);
    const expected = cpus >= 2 ? 'up to 100 µs' : 'off';
    expect(unset.stdout).toContain(`polling: ${expected}, the default with ${cpus} CPU`);
  });

  it('warns when config opens the control files to the built-in tools, saying what is open', async () => {
    const { code, stdout } = await doctor(['healthy'], {
      builtins: { controlFiles: { config: 'read', plugins: 'write' } },
    });
    expect(stdout).toContain(
      '⚠ control files: opened by builtins.controlFiles: the config file is readable, not writable; ' +
        "plugins/ is writable (the model can author plugins the host loads); skills/ is read-only; .toolhost/ and the host's own code are read-only\n" +
        '    fix: remove builtins.controlFiles unless an agent must author these files',
    );
    expect(stdout).toMatch(/All is well, 1 warning\.\n$/);
    expect(code).toBe(0);
  });

  it('warns when builtins.controlFiles.skills opens skills/, which later prompts list', async () => {
    const { stdout } = await doctor(['healthy'], { builtins: { controlFiles: { skills: 'write' } } });
    expect(stdout).toContain(
      '⚠ control files: opened by builtins.controlFiles: the config file is closed; plugins/ is read-only; ' +
        "skills/ is writable (the model can author skills later sessions' prompts list); .toolhost/ and the host's own code are read-only",
    );
  });

  it('warns when a plugin grant covers the host control files, which ctx.fs refuses whatever the grant', async () => {
    const { stdout } = await doctor(['healthy'], {
      plugins: { healthy: { grants: { fs: { read: ['.toolhost/cache'], write: ['.', 'data'] } } } },
    });
    expect(stdout).toContain(
      '⚠ plugins.healthy.grants.fs.write: "." covers host control files (toolhost.config.json, plugins/, skills/, .toolhost/); ' +
        'ctx.fs refuses to change them whatever the grant\n' +
        '    fix: grant the folder that holds the plugin\'s data (say "data"), not one holding the host\'s control files',
    );
    expect(stdout).toContain(
      '⚠ plugins.healthy.grants.fs.read: ".toolhost/cache" covers host control files (.toolhost/); ctx.fs refuses to read them',
    );
    expect(stdout).not.toContain('"data" covers');
    expect(stdout).toMatch(/2 warnings\.\n$/);
  });

  it('exits 1 for a permission that config does not grant, naming the permission and the config key', async () => {
    const { code, stdout } = await doctor([notes], {
      plugins: { notes: { grants: { fs: { read: ['notes'] } } } },
    });
    expect(stdout).toContain(
      '✖ plugin notes: asks for permissions.fs.write "notes", which config does not grant\n' +
        '    fix: add "notes" to plugins.notes.grants.fs.write in toolhost.config.json',
    );
    expect(stdout).not.toContain('permissions.fs.read');
    expect(stdout).toContain('"write": [\n            "notes"\n          ]');
    expect(stdout).toMatch(/1 problem\.\n$/);
    expect(code).toBe(1);
  });

  it('exits 1 listing every issue of an invalid config', async () => {
    const { code, stdout } = await doctor(['healthy'], {
      sandbox: 'elsewhere',
      plugins: { notes: { grant: {} } },
    });
    expect(stdout).toContain('✖ config: toolhost.config.json is not valid');
    expect(stdout).toMatch(/toolhost\.config\.json: sandbox: /);
    expect(stdout).toMatch(/toolhost\.config\.json: plugins\.notes: unknown key\(s\): grant/);
    expect(code).toBe(1);
  });

  it('exits 1 for a plugin that does not build; warns about settings for a missing plugin', async () => {
    const { code, stdout } = await doctor(['healthy', 'syntax-error'], {
      plugins: { weathr: { enabled: true } },
    });
    expect(stdout).toMatch(
      /✖ plugin syntax-error: does not load\n {4}plugin "syntax-error" does not build: index\.ts:/,
    );
    expect(stdout).toContain(
      '⚠ plugins.weathr: config has settings for "weathr" but plugins/weathr/ does not exist',
    );
    expect(stdout).toMatch(/1 problem, 1 warning\.\n$/);
    expect(code).toBe(1);
  });

  it('reports each MCP server of config', async () => {
    const { stdout, code } = await doctor([], {
      mcpServers: { nowhere: { command: 'toolhost-no-such-program' } },
    });
    expect(stdout).toMatch(/mcp server nowhere: unavailable: /);
    expect(stdout).toMatch(/fix: check mcpServers\.nowhere/);
    expect(code).toBe(1);
  });
});
