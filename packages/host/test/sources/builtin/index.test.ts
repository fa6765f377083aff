import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../../src/sources/builtin/index.js';
import { makeSandbox, type Sandbox } from './helpers.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe('createBuiltinTools', () => {
  it('offers the file tools in group fs, as core tools, and no exec by default', () => {
    const tools = createBuiltinTools({ root: sb.root });
    expect(tools.map((t) => t.descriptor.name)).toEqual(['read', 'write', 'edit', 'ls', 'grep']);
    for (const tool of tools) {
      expect(tool.source).toBe('builtin');
      expect(tool.groups).toEqual(['fs']);
      expect(tool.descriptor.owner).toEqual({ kind: 'core' });
      expect(tool.descriptor.executor).toEqual({
        kind: 'core',
        executorId: `builtin/${tool.descriptor.name}`,
      });
    }
  });

  it('leaves exec out unless it is enabled', () => {
    const names = (exec: Parameters<typeof createBuiltinTools>[0]['exec']) =>
      createBuiltinTools({ root: sb.root, exec }).map((t) => t.descriptor.name);
    expect(names({ timeoutMs: 5, allowedCommands: ['ls'] })).not.toContain('exec');
    expect(names({ enabled: false })).not.toContain('exec');
    expect(names({ enabled: true })).toContain('exec');
  });

  it('puts exec in group runtime', () => {
    const exec = createBuiltinTools({ root: sb.root, exec: { enabled: true } }).find(
      (t) => t.descriptor.name === 'exec',
    );
    expect(exec?.groups).toEqual(['runtime']);
    expect(exec?.descriptor.outputSchema).toBeDefined();
  });

  it('marks read-only and destructive tools', () => {
    const annotations = Object.fromEntries(
      createBuiltinTools({ root: sb.root }).map((t) => [t.descriptor.name, t.descriptor.annotations]),
    );
    expect(annotations.read?.readOnlyHint).toBe(true);
    expect(annotations.ls?.readOnlyHint).toBe(true);
    expect(annotations.grep?.readOnlyHint).toBe(true);
    expect(annotations.write?.destructiveHint).toBe(true);
    expect(annotations.edit?.destructiveHint).toBe(true);
  });

  it('refuses nonsense options', () => {
    expect(() => createBuiltinTools({ root: '' })).toThrow('root must be a non-empty path');
    expect(() => createBuiltinTools({ root: sb.root, maxReadBytes: 0 })).toThrow(
      'maxReadBytes must be a positive',
    );
    expect(() => createBuiltinTools({ root: sb.root, exec: { enabled: true, timeoutMs: -1 } })).toThrow(
      'exec.timeoutMs must be a positive',
    );
  });
});
