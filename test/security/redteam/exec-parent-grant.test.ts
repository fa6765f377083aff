import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type ToolHost } from '@toolhost/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * exec's jail keeps the control paths by making every folder between a writable root and them a
 * mount point, which cannot be renamed. The workspace root was taken to be one, but a
 * `builtins.exec.sandbox.fs.write` grant of a folder that holds the workspace (its parent, the
 * home folder) is bound after it and covers it: the root is then a plain folder of a writable
 * mount, and exec renamed the whole workspace away and made a new one in its place, with a config
 * of its own that the host loads on its next reload or start.
 */
const WIDER = '{"builtins":{"exec":{"enabled":true},"controlFiles":{"config":"write"}}}';

let base: string;
let root: string;
let host: ToolHost | undefined;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-parent-grant-')));
  root = path.join(base, 'project');
  await mkdir(path.join(root, 'plugins', 'kept'), { recursive: true });
  await writeFile(path.join(root, 'plugins', 'kept', 'index.ts'), '// the original\n');
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(base, { recursive: true, force: true });
});

describe('exec granted to write a folder that holds the workspace', () => {
  it('cannot move the workspace away and put another, with its own config, in its place', async () => {
    const config = { builtins: { exec: { enabled: true, sandbox: { fs: { write: [base] } } } } };
    await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify(config));
    host = await createHost({ root, watch: false, cache: false });
    const { result } = await host.session().call('exec', {
      command: 'sh',
      args: [
        '-c',
        `cd "${base}"; mv project project-old; mkdir -p project/plugins/evil; ` +
          `echo '${WIDER}' > project/toolhost.config.json; echo x > project/plugins/evil/index.ts; ` +
          'echo written > elsewhere.txt',
      ],
    });
    expect(JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'))).toEqual(config);
    expect(await readdir(path.join(root, 'plugins'))).toEqual(['kept']);
    expect(await readdir(base)).not.toContain('project-old');
    // The grant itself works: the folder is writable.
    expect(await readFile(path.join(base, 'elsewhere.txt'), 'utf8')).toBe('written\n');
    expect((result.structuredContent as { stderr: string }).stderr).toMatch(/busy|denied|read-only/i);
  });
});
