import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ConfigIssue, loadConfigFile, parseConfig } from '../../src/config/load.js';
import { tempProject } from './helpers.js';

const project = tempProject();

/** The issues of an outcome that must have failed. */
async function issuesOf(content: string | object): Promise<readonly ConfigIssue[]> {
  const file = await project.write(content);
  const outcome = await loadConfigFile(file);
  if (outcome.ok) throw new Error(`expected ${file} to be invalid`);
  for (const issue of outcome.issues) expect(issue.file).toBe(file);
  return outcome.issues;
}

describe('loadConfigFile', () => {
  it('treats a missing file as an empty config, found: false', async () => {
    expect(await loadConfigFile(path.join(project.dir, 'nope.json'))).toEqual({
      ok: true,
      config: {},
      found: false,
    });
  });

  it('reads a valid file, found: true', async () => {
    const file = await project.write({ tools: { deny: ['write'] } });
    expect(await loadConfigFile(file)).toEqual({
      ok: true,
      config: { tools: { deny: ['write'] } },
      found: true,
    });
  });

  it('reports a JSON syntax error as one issue at (root) with its line and column', async () => {
    // The trailing comma: the parser stops at the `}` on line 4, column 3.
    const issues = await issuesOf('{\n  "tools": {\n    "deny": ["write"],\n  }\n}\n');
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('(root)');
    expect(issues[0]?.message).toMatch(/^not valid JSON at line 4, column 3: /);
  });

  it('gives the line and column of an unexpected token too', async () => {
    // Node 20's message for this error has no "position N", so the line must be found another way.
    const issues = await issuesOf('{\n  "sandbox": inline\n}\n');
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('(root)');
    expect(issues[0]?.message).toMatch(/line 2, column 14/);
  });

  it('reads a file that starts with a UTF-8 byte-order mark, as Node does for JSON modules', async () => {
    const file = await project.write('\uFEFF{ "tools": { "deny": ["write"] } }\n');
    expect(await loadConfigFile(file)).toMatchObject({ ok: true, config: { tools: { deny: ['write'] } } });
  });

  it('reports a file that cannot be read (a folder) at (root)', async () => {
    const outcome = await loadConfigFile(project.dir);
    expect(outcome).toEqual({
      ok: false,
      issues: [{ file: project.dir, path: '(root)', message: expect.stringMatching(/^cannot read: /) }],
    });
  });

  it('names an unknown key at the root', async () => {
    expect(await issuesOf({ toolz: { deny: ['write'] } })).toEqual([
      expect.objectContaining({ path: '(root)', message: 'unknown key(s): toolz (did you mean "tools"?)' }),
    ]);
  });

  it('names an unknown nested key with the path of its object', async () => {
    expect(await issuesOf({ plugins: { notes: { grantz: { net: ['x.com'] } } } })).toEqual([
      expect.objectContaining({
        path: 'plugins.notes',
        message: 'unknown key(s): grantz (did you mean "grants"?)',
      }),
    ]);
    expect(await issuesOf({ builtins: { exec: { enabeld: true } } })).toEqual([
      expect.objectContaining({
        path: 'builtins.exec',
        message: 'unknown key(s): enabeld (did you mean "enabled"?)',
      }),
    ]);
    expect(await issuesOf({ mcpServers: { files: { command: 'npx', argz: [] } } })).toEqual([
      expect.objectContaining({
        path: 'mcpServers.files',
        message: 'unknown key(s): argz (did you mean "args"?)',
      }),
    ]);
  });

  it('gives the dotted path and the reason of a wrong type', async () => {
    expect(await issuesOf({ limits: { timeoutMs: 'soon' } })).toEqual([
      expect.objectContaining({
        path: 'limits.timeoutMs',
        message: expect.stringMatching(/expected number/),
      }),
    ]);
    expect(await issuesOf({ tools: { deny: 'write' } })).toEqual([
      expect.objectContaining({ path: 'tools.deny', message: expect.stringMatching(/expected array/) }),
    ]);
    expect(await issuesOf({ plugins: { notes: { grants: { fs: { read: [''] } } } } })).toEqual([
      expect.objectContaining({ path: 'plugins.notes.grants.fs.read.0', message: expect.any(String) }),
    ]);
  });

  it('gives the path and the reason of a wrong type inside the builtins union', async () => {
    // `builtins` is `boolean | {…}`: the object branch is the one that matched, so its issue is the useful one.
    expect(await issuesOf({ builtins: { maxReadBytes: 'lots' } })).toEqual([
      expect.objectContaining({
        path: 'builtins.maxReadBytes',
        message: expect.stringMatching(/expected number/),
      }),
    ]);
  });

  it('names the key inside the sandbox object, whose string form fails on any object too', async () => {
    // `sandbox` is `"process" | "inline" | {…}`: the enum says `invalid_value` (not a wrong type)
    // to an object, so both options fail "on their own terms"; the one that got inside is meant.
    expect(await issuesOf({ sandbox: { mode: 'process', jail: 'sometimes' } })).toEqual([
      expect.objectContaining({
        path: 'sandbox.jail',
        message: expect.stringMatching(/"auto"\|"required"\|"off"/),
      }),
    ]);
    expect(await issuesOf({ sandbox: { pollMicros: 2.5 } })).toEqual([
      expect.objectContaining({ path: 'sandbox.pollMicros', message: expect.stringMatching(/expected int/) }),
    ]);
    expect(await issuesOf({ sandbox: { jails: 'off' } })).toEqual([
      expect.objectContaining({ path: 'sandbox', message: expect.stringMatching(/jails/) }),
    ]);
    // A wrong string still says which strings it may be.
    expect(await issuesOf({ sandbox: 'vm' })).toEqual([
      expect.objectContaining({ path: 'sandbox', message: expect.stringMatching(/"process"\|"inline"/) }),
    ]);
  });

  it('reports every problem at once', async () => {
    const issues = await issuesOf({
      toolz: {},
      sandbox: 'vm',
      limits: { plugin: { memoryMb: 1 } },
      plugins: { notes: { hooks: 'some', grantz: {} } },
      mcpServers: { remote: { url: 'not a url' } },
    });
    expect(issues.map((i) => i.path).sort()).toEqual(
      [
        '(root)',
        'limits.plugin.memoryMb',
        'mcpServers.remote.url',
        'plugins.notes',
        'plugins.notes.hooks',
        'sandbox',
      ].sort(),
    );
    expect(issues.find((i) => i.path === '(root)')?.message).toBe(
      'unknown key(s): toolz (did you mean "tools"?)',
    );
    expect(issues.find((i) => i.path === 'sandbox')?.message).toMatch(/process.*inline/);
  });
});

describe('parseConfig', () => {
  it('rejects a value that is not an object, at (root)', () => {
    expect(parseConfig([], 'f.json')).toEqual({
      ok: false,
      issues: [{ file: 'f.json', path: '(root)', message: expect.stringMatching(/expected object/) }],
    });
  });
});
