import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListJson } from '../../packages/host/src/cli/types.js';
import { ANSI, cleanEnv, project, REPO, toolhost, toolhostInProcess } from './cli.js';

describe('toolhost list', () => {
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ root, dispose } = await project(
      ['healthy', 'syntax-error', { from: path.join(REPO, 'plugins/weather') }],
      {
        plugins: { weather: { grants: { net: ['api.open-meteo.com'] } } },
      },
    ));
  });
  afterAll(() => dispose());

  it('prints the plan as tables: visible tools with owner and executor, hidden ones with why, plugins', async () => {
    const { code, stdout, stderr } = await toolhostInProcess(['list', '--root', root]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('Visible tools (6)'); // healthy_echo and the five built-ins (exec is off)
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}healthy_echo +plugin +plugin:healthy +plugin:healthy:healthy_echo +Echoes its text$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}read +core +core +core:builtin\/read +Read a UTF-8/),
    );
    expect(stdout).toContain('Hidden tools (4)');
    // Code mode's tools, hidden while code mode is off, and why.
    expect(stdout).toMatch(
      / {2}run_code +core +context-mismatch: session context "tools\.codeMode" is false/,
    );
    expect(stdout).toMatch(
      / {2}plugin:syntax-error +plugin:syntax-error +plugin-load-failed: plugin "syntax-error"/,
    );
    expect(stdout).toMatch(
      / {2}weather_now +plugin:weather +env-missing: environment variable WEATHER_API_KEY/,
    );
    expect(stdout).toMatch(
      /Plugins \(3\)\n {2}healthy +loaded\n {2}syntax-error +failed +plugin "syntax-error" does not build/,
    );
    expect(stdout).toMatch(/weather +loaded/);
    expect(stdout).not.toMatch(ANSI);
  });

  it('--json prints the documented contract on stdout, and the warnings on stderr as list does', async () => {
    const { code, stdout, stderr } = await toolhostInProcess(['list', '--json', '--root', root]);
    expect(stderr).toContain('Warnings (1)');
    expect(stderr).toContain(
      'plugin weather: asks for permissions.env "WEATHER_API_KEY", which config does not grant',
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as ListJson;
    expect(Object.keys(json)).toEqual([
      'visible',
      'hidden',
      'plugins',
      'isolates',
      'skills',
      'walls',
      'toolWalls',
    ]);
    expect(json.walls).toEqual({ isolate: true, jail: { up: true, kind: 'bubblewrap', seccomp: true } });
    expect(json.visible.map((t) => t.name)).toEqual(['edit', 'grep', 'healthy_echo', 'ls', 'read', 'write']);
    expect(json.visible.find((t) => t.name === 'read')).toMatchObject({
      owner: 'core',
      kind: 'core',
      executor: 'core:builtin/read',
    });
    expect(json.visible.filter((t) => t.owner !== 'core')).toEqual([
      {
        name: 'healthy_echo',
        description: 'Echoes its text',
        owner: 'plugin:healthy',
        kind: 'plugin',
        executor: 'plugin:healthy:healthy_echo',
        inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }),
      },
    ]);
    const codeModeOff = [{ reason: 'context-mismatch', message: expect.stringContaining('tools.codeMode') }];
    expect(json.hidden).toEqual([
      {
        name: 'plugin:syntax-error',
        owner: 'plugin:syntax-error',
        diagnostics: [{ reason: 'plugin-load-failed', message: expect.stringContaining('does not build') }],
      },
      { name: 'run_code', owner: 'core', diagnostics: codeModeOff },
      { name: 'describe_tools', owner: 'core', diagnostics: codeModeOff },
      {
        name: 'weather_now',
        owner: 'plugin:weather',
        diagnostics: [{ reason: 'env-missing', message: expect.stringContaining('WEATHER_API_KEY') }],
      },
    ]);
    expect(json.plugins).toEqual([
      { id: 'healthy', status: 'loaded', diagnostics: [] },
      { id: 'syntax-error', status: 'failed', diagnostics: [expect.stringContaining('does not build')] },
      { id: 'weather', status: 'loaded', diagnostics: [] },
    ]);
    // Nothing was called: no isolate is live; the settings are the defaults.
    expect(json.isolates).toEqual({ live: 0, maxLive: 128, idleSeconds: 300, evicted: { idle: 0, cap: 0 } });
  });

  it('exits 1 with every issue when the config is invalid', async () => {
    const bad = await project([], { tools: { deny: 'write' }, unknownKey: true });
    try {
      const { code, stdout, stderr } = await toolhostInProcess(['list', '--root', bad.root]);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain('invalid config');
      expect(stderr).toContain('tools.deny');
      expect(stderr).toContain('unknown key(s): unknownKey');
    } finally {
      await bad.dispose();
    }
  });
});

describe('toolhost list without MCP servers', () => {
  it('never loads the MCP client SDK (the bridge loads with the first server listed) nor chokidar', async () => {
    const { root, dispose } = await project(['healthy']);
    try {
      const log = path.join(root, 'imports.log');
      const hook = path.join(REPO, 'test/fixtures/hooks/log-imports.mjs');
      const { code } = await toolhost(['list', '--root', root], {
        env: cleanEnv({ NODE_OPTIONS: `--import=${hook}`, TOOLHOST_TEST_IMPORT_LOG: log }),
      });
      expect(code).toBe(0);
      const loaded = (await readFile(log, 'utf8')).split('\n');
      // The log saw the host's own modules (so an empty log cannot pass), and no MCP client.
      expect(loaded.some((url) => url.includes('/sources/plugins/'))).toBe(true);
      expect(loaded.filter((url) => url.includes('@modelcontextprotocol/client'))).toEqual([]);
      // Nor a watcher: list never watches.
      expect(loaded.filter((url) => url.includes('/node_modules/chokidar/'))).toEqual([]);
    } finally {
      await dispose();
    }
  });
});

describe('toolhost list with a plugin tool named like a built-in', () => {
  it('shows the refused tool among the hidden ones with override-refused and the key, and the built-in visible', async () => {
    const { root, dispose } = await project(['clashes-builtin']);
    try {
      const { code, stdout } = await toolhostInProcess(['list', '--root', root]);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^ {2}read +core +core +core:builtin\/read /m);
      expect(stdout).toMatch(
        /^ {2}read +plugin:clashes-builtin +override-refused: tool "read" of plugin:clashes-builtin is hidden: .*add "read" to plugins\.clashes-builtin\.overrides/m,
      );
    } finally {
      await dispose();
    }
  });
});

describe('toolhost list with deferred tools', () => {
  it('says which tools are deferred and how a client reaches them, in the table and in --json', async () => {
    const { root, dispose } = await project(['healthy'], { tools: { defer: ['healthy_*', 'grep'] } });
    try {
      const { code, stdout } = await toolhostInProcess(['list', '--root', root]);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^ {2}healthy_echo +deferred +plugin +plugin:healthy +/m);
      expect(stdout).toMatch(/^ {2}grep +deferred +core +/m);
      expect(stdout).toMatch(/^ {2}read {2,}core +core +/m);
      expect(stdout).toContain(
        'Deferred (2): not listed up front; a client finds them with tool_search and calls them by name or through call_tool (tools.defer, tools.catalog)',
      );
      const json = JSON.parse(
        (await toolhostInProcess(['list', '--json', '--root', root])).stdout,
      ) as ListJson;
      expect(json.visible.filter((t) => t.deferred === true).map((t) => t.name)).toEqual([
        'grep',
        'healthy_echo',
      ]);
      expect(json.visible.find((t) => t.name === 'read')).not.toHaveProperty('deferred');
    } finally {
      await dispose();
    }
  });
});
