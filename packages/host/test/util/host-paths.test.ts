import { describe, expect, it } from 'vitest';
import { HOST_PATH, withoutHostPaths } from '../../src/util/host-paths.js';

describe('withoutHostPaths', () => {
  it("replaces the absolute paths of Node's error messages, file: URLs and drive paths", () => {
    expect(withoutHostPaths("EMFILE: too many open files, open '/home/ann/project/notes.txt'")).toBe(
      `EMFILE: too many open files, open '${HOST_PATH}'`,
    );
    expect(withoutHostPaths('at file:///tmp/x/y.js:3:1 and C:\\Users\\ann\\x.txt')).toBe(
      `at ${HOST_PATH}:3:1 and ${HOST_PATH}`,
    );
    expect(withoutHostPaths('/tmp')).toBe(HOST_PATH);
  });

  it('leaves URL paths, relative paths and look-alikes alone', () => {
    for (const text of [
      'GET /api/users returned 500',
      'https://example.com/tmp/x failed',
      'path "data/tmp/x" does not exist',
      '/tmpfiles is not a folder of the root',
      'ratio 3/4, 1/2',
    ]) {
      expect(withoutHostPaths(text)).toBe(text);
    }
  });

  it('keeps a path the model wrote itself', () => {
    const message = 'path "/etc/passwd" is outside the workspace root';
    expect(withoutHostPaths(message, () => '{"path":"/etc/passwd"}')).toBe(message);
    expect(withoutHostPaths(message, () => '{"path":"x"}')).toBe(
      `path "${HOST_PATH}" is outside the workspace root`,
    );
  });
});
