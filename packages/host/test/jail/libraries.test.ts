import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { interpreterOf, systemLibraries } from '../../src/jail/bwrap.js';

describe('the libraries bound into the jail', () => {
  it('are the ones ldd lists for the Node binary, found through its own dynamic loader', () => {
    const listed = execFileSync('ldd', [process.execPath], { encoding: 'utf8' })
      .split('\n')
      .map((line) => /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line)?.[1])
      .filter((file): file is string => file !== undefined);
    expect(listed.length).toBeGreaterThan(0);
    expect(systemLibraries().map((library) => library.path)).toEqual(listed);
  });

  it('reads the loader from the ELF header: an absolute path for Node, none for a text file', () => {
    expect(interpreterOf(process.execPath)).toMatch(/^\/.*ld-linux.*\.so\.\d+$/);
    expect(interpreterOf('/etc/passwd')).toBeUndefined();
    expect(interpreterOf('/nonexistent/file')).toBeUndefined();
  });

  it('names no loader for a cut or altered header: short, cut inside the loader path or before its end, or a relative path', () => {
    const node = Buffer.alloc(4096);
    const fd = openSync(process.execPath, 'r');
    readSync(fd, node, 0, node.length, 0);
    closeSync(fd);
    const named = interpreterOf(process.execPath) ?? '';
    const at = node.indexOf(Buffer.from(`${named}\0`, 'latin1'));
    expect(at).toBeGreaterThan(0);
    const dir = mkdtempSync(path.join(tmpdir(), 'toolhost-elf-'));
    try {
      const file = (name: string, bytes: Buffer) => {
        writeFileSync(path.join(dir, name), bytes);
        return path.join(dir, name);
      };
      expect(interpreterOf(file('whole', node))).toBe(named);
      expect(interpreterOf(file('magic-only', node.subarray(0, 4)))).toBeUndefined();
      expect(interpreterOf(file('header-only', node.subarray(0, 0x40)))).toBeUndefined();
      expect(interpreterOf(file('cut-in-path', node.subarray(0, at + 4)))).toBeUndefined();
      // The whole path but not its terminating NUL: what follows is not the file's.
      expect(interpreterOf(file('cut-before-nul', node.subarray(0, at + named.length)))).toBeUndefined();
      const relative = Buffer.from(node);
      relative.write('l', at, 'latin1'); // "/lib64/…" becomes "llib64/…"
      expect(interpreterOf(file('relative', relative))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
