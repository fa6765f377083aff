/** `toolhost list` shows the skills of `skills/` beside the tools: usable ones, and hidden ones with why. */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListJson } from '../../packages/host/src/cli/types.js';
import { project, toolhostInProcess } from './cli.js';

describe('toolhost list, skills', () => {
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ root, dispose } = await project());
    const skill = async (name: string, front: string) => {
      await mkdir(path.join(root, 'skills', name), { recursive: true });
      await writeFile(path.join(root, 'skills', name, 'SKILL.md'), `---\n${front}\n---\nSteps.\n`);
    };
    await skill('review', 'name: review\ndescription: Reviews a diff');
    await skill('gh', 'name: gh\ndescription: GitHub things\nrequires:\n  bins: [toolhost-no-such-gh]');
  });
  afterAll(() => dispose());

  it('prints a Skills table with hidden skills and their reasons, and the skill tool among the tools', async () => {
    const { code, stdout } = await toolhostInProcess(['list', '--root', root]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}skill +core +core +core:skill +Loads a skill/m);
    expect(stdout).toMatch(
      /Skills \(2\)\n {2}gh +hidden +bin-missing: needs the program "toolhost-no-such-gh" on PATH/,
    );
    expect(stdout).toMatch(/^ {2}review +model, user +Reviews a diff$/m);
  });

  it('--json has a skills array', async () => {
    const { code, stdout } = await toolhostInProcess(['list', '--json', '--root', root]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as ListJson;
    expect(json.skills.map((s) => [s.name, s.status])).toEqual([
      ['gh', 'hidden'],
      ['review', 'visible'],
    ]);
    expect(json.skills[0]?.diagnostics[0]?.reason).toBe('bin-missing');
  });
});
