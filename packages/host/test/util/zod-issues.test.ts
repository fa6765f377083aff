import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { issuePath, issuesText, zodIssues } from '../../src/util/zod-issues.js';

describe('issuePath', () => {
  it('joins the segments with dots and calls the empty path (root)', () => {
    expect(issuePath([])).toBe('(root)');
    expect(issuePath(['a', 0, 'b'])).toBe('a.0.b');
    expect(issuePath([Symbol('s')])).toBe('Symbol(s)');
  });
});

describe('zodIssues', () => {
  it("gives each of zod's issues its dotted path and zod's own message", () => {
    const schema = z.object({ items: z.array(z.object({ n: z.number() })), name: z.string() });
    const parsed = schema.safeParse({ items: [{ n: 1 }, { n: 'two' }] });
    expect(parsed.success).toBe(false);
    const issues = zodIssues(parsed.error as z.ZodError);
    expect(issues.map((i) => i.path)).toEqual(['items.1.n', 'name']);
    expect(issues[0]?.message).toMatch(/expected number/);
  });

  it('puts a problem with the whole value at (root)', () => {
    const parsed = z.string().safeParse(1);
    expect(zodIssues(parsed.error as z.ZodError)).toEqual([
      { path: '(root)', message: 'Invalid input: expected string, received number' },
    ]);
  });
});

describe('issuesText', () => {
  it('renders issues as one line: at "path": message, separated by semicolons', () => {
    expect(
      issuesText([
        { path: 'a.b', message: 'is required' },
        { path: '(root)', message: 'too big' },
      ]),
    ).toBe('at "a.b": is required; at "(root)": too big');
    expect(issuesText([])).toBe('');
  });
});
