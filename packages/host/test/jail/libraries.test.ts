import { execFileSync } from 'node:child_process';
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
});
