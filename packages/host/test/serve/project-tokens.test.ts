import { renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectTokenCheck } from '../../src/serve/auth/project-tokens.js';
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

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the project token check', () => {
  it('looks at the file on every check; the list of all tokens takes the look of a check made in the same turn', async () => {
    const [first] = await projectTokens(root);
    const tokens = projectTokenCheck({ root });
    // Something takes the list (an audit trail's secrets): from now on a check shares its look.
    expect(tokens.all()).toEqual([first?.token]);
    await nextTurn();
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    const second = newToken();
    replaceNow({ default: second });
    // The audit record of the request just checked: the tokens it was let in under.
    expect(tokens.all()).toEqual([first?.token]);
    // The next check looks again: the rotation holds at once.
    expect(tokens.check(first?.token ?? '')).toBeUndefined();
    expect(tokens.check(second)?.id).toBe('token:default');
    expect(tokens.all()).toEqual([second]);
    // In a later turn with no check, the list looks at the file itself.
    await nextTurn();
    const third = newToken();
    replaceNow({ default: third, other: newToken() });
    expect(tokens.all()[0]).toBe(third);
    expect(tokens.all()).toHaveLength(2);
  });

  it('marks no turn while nothing takes the list', async () => {
    const [first] = await projectTokens(root);
    const tokens = projectTokenCheck({ root });
    expect(tokens.check(first?.token ?? '')?.id).toBe('token:default');
    const second = newToken();
    replaceNow({ default: second });
    expect(tokens.all()).toEqual([second]);
  });
});
