import { describe, expect, it } from 'vitest';
import { checkWithJsonSchema, MAX_SCHEMA_DEPTH } from '../../../src/core/wrap/input-check.js';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    depth: { type: 'integer', minimum: 0, default: 2 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['path'],
  additionalProperties: false,
};

describe('checkWithJsonSchema', () => {
  it('accepts a valid input and applies defaults to a copy, never to the caller’s object', () => {
    const input = { path: 'a.txt' };
    const checked = checkWithJsonSchema(schema, input);
    expect(checked).toEqual({ ok: true, value: { path: 'a.txt', depth: 2 } });
    expect(input).toEqual({ path: 'a.txt' });
  });

  it('names every failing path, as zod issues are named', () => {
    const checked = checkWithJsonSchema(schema, { depth: -1, tags: ['x', 3], extra: true });
    expect(checked.ok).toBe(false);
    const issues = checked.ok ? [] : checked.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'path', message: 'is required' },
        { path: 'depth', message: 'must be >= 0' },
        { path: 'tags.1', message: 'expected string, received number' },
        { path: 'extra', message: 'is not an allowed property' },
      ]),
    );
  });

  it('runs schema patterns in linear time: a catastrophic pattern cannot freeze the host', () => {
    // With a backtracking engine this input takes 2^30 steps (minutes); RE2 answers at once.
    const evil = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    const checked = checkWithJsonSchema(evil, { s: `${'a'.repeat(30)}!` });
    expect(checked.ok ? [] : checked.issues).toEqual([
      { path: 's', message: 'must match pattern "^(a+)+$"' },
    ]);
    expect(checkWithJsonSchema(evil, { s: 'aaaa' }).ok).toBe(true);
  });

  it('keeps patterns apart (each pattern is its own matcher) and honours patternProperties', () => {
    const two = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '^x+$' }, b: { type: 'string', pattern: '^y+$' } },
      patternProperties: { '^n_': { type: 'number' } },
    };
    expect(checkWithJsonSchema(two, { a: 'xx', b: 'yy', n_1: 1 }).ok).toBe(true);
    expect(checkWithJsonSchema(two, { a: 'yy' }).ok).toBe(false);
    expect(checkWithJsonSchema(two, { b: 'xx' }).ok).toBe(false);
    expect(checkWithJsonSchema(two, { n_1: 'one' }).ok).toBe(false);
  });

  it('compiles draft-07 schemas (tuple items, definitions) as draft-07', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] },
        d: { $ref: '#/definitions/d' },
      },
      definitions: { d: { type: 'boolean' } },
    };
    expect(checkWithJsonSchema(draft7, { pair: ['a', 1], d: true }).ok).toBe(true);
    expect(checkWithJsonSchema(draft7, { pair: [1, 'a'] }).ok).toBe(false);
    expect(checkWithJsonSchema(draft7, { d: 'yes' }).ok).toBe(false);
  });

  it('fails every input of a schema it cannot use, saying why, instead of letting it through', () => {
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH + 2; i++) deep = { type: 'object', properties: { x: deep } };
    const tooDeep = checkWithJsonSchema(deep, {});
    expect(tooDeep.ok ? [] : tooDeep.issues[0]?.message).toMatch(
      /input schema cannot be used: .*deeper than 64/,
    );
    const broken = checkWithJsonSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, {});
    expect(broken.ok ? [] : broken.issues[0]?.message).toMatch(/input schema cannot be used: .*nowhere/);
  });

  it('refuses input that is not plain data where defaults must be copied in', () => {
    const open = { ...schema, additionalProperties: true };
    const checked = checkWithJsonSchema(open, { path: 'a', fn: () => 1 });
    expect(checked.ok ? [] : checked.issues).toEqual([
      { path: '(root)', message: 'the input is not plain JSON data' },
    ]);
    expect(checked.ok).toBe(false);
  });
});
