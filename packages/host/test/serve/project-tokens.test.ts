import { mkdirSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LOOK_HOLDS_MS,
  type ProjectTokenCheck,
  projectTokenCheck,
  type TokenCheckOptions,
} from '../../src/serve/auth/project-tokens.js';
import { newToken, projectTokens, tokensPath } from '../../src/serve/auth/tokens.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolhost-project-tokens-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Replaces the tokens file at once (temporary file and rename, as `toolhost token` does). */
function replaceNow(tokens: Record<string, string>): void {
  const file = tokensPath(root);
  writeFileSync(`${file}.tmp`, JSON.stringify({ tokens }), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/**
 * Resolves after the next change event of `name` in the tokens file's folder has reached every
 * watch of it (the check's too): one turn of the event loop after this one's.
 */
function changeSeen(name = path.basename(tokensPath(root))): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(path.dirname(tokensPath(root)), (_event, file) => {
      if (file !== name) return;
      watcher.close();
      setImmediate(resolve);
    });
  });
}

const checks: ProjectTokenCheck[] = [];
afterEach(() => {
  for (const check of checks.splice(0)) check.close();
});
function checkOf(options?: TokenCheckOptions): ProjectTokenCheck {
  const check = projectTokenCheck({ root }, options);
  checks.push(check);
  return check;
}

describe('the project token check', () => {
  it('reads the file again at the first check after its change event: a rotation holds from then on', async () => {
    const [first] = await projectTokens(root);
    const tokens = checkOf();
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    expect(tokens.all()).toEqual([first?.token]);
    const generation = tokens.generation();
    const second = newToken();
    const seen = changeSeen();
    replaceNow({ default: second });
    await seen;
    expect(tokens.check(first?.token ?? '')).toBeUndefined();
    expect(tokens.check(second)?.id).toBe('token:default');
    expect(tokens.all()).toEqual([second]);
    expect(tokens.generation()).not.toBe(generation);
  });

  it('a removal holds as a rotation does: no token is let in once the file is gone', async () => {
    const [first] = await projectTokens(root);
    const tokens = checkOf();
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    const seen = changeSeen();
    rmSync(tokensPath(root));
    await seen;
    expect(tokens.check(first?.token ?? '')).toBeUndefined();
    expect(tokens.all()).toEqual([]);
  });

  it('where no change event comes (a network file system), looks at the file again once its last look is LOOK_HOLDS_MS old', async () => {
    const [first] = await projectTokens(root);
    let now = 1_000;
    const tokens = checkOf({ now: () => now, events: false });
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    const second = newToken();
    const seen = changeSeen();
    replaceNow({ default: second });
    await seen;
    // No event reached the check: the look of a moment ago holds, and says so of its age.
    now += LOOK_HOLDS_MS - 1;
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    now += 1;
    expect(tokens.check(first?.token ?? '')).toBeUndefined();
    expect(tokens.check(second)?.id).toBe('token:default');
  });

  it('once its folder is removed, looks at the file on every check (no events will come from a new folder)', async () => {
    const [first] = await projectTokens(root);
    const now = 1_000;
    const tokens = checkOf({ now: () => now });
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    const dir = path.dirname(tokensPath(root));
    const gone = changeSeen(path.basename(dir));
    // A watch of the folder hears of the folder's own removal under the folder's name.
    rmSync(dir, { recursive: true });
    await gone;
    mkdirSync(dir);
    const second = newToken();
    replaceNow({ default: second });
    // The same instant, no event: it still looks.
    expect(tokens.check(second)?.id).toBe('token:default');
  });
});
