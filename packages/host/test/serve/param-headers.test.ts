import { describe, expect, it } from 'vitest';
import { headerDeclarations, paramHeaderMismatch } from '../../src/serve/param-headers.js';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
    list: { type: 'array', items: { type: 'object', properties: { no: { 'x-mcp-header': 'No' } } } },
  },
};
const headers = (entries: Record<string, string>) => new Headers(entries);

describe('Mcp-Param-* headers against the arguments (SEP-2243)', () => {
  it('finds declarations only along properties, not under items', () => {
    expect(headerDeclarations(schema).map((d) => d.header)).toEqual(['Region', 'Count', 'Zone']);
  });

  it('accepts equal values, literal or in canonical Base64, and numbers compared as numbers', () => {
    const b64 = `=?base64?${Buffer.from('eu-west').toString('base64')}?=`;
    expect(
      paramHeaderMismatch(schema, { region: 'eu-west' }, headers({ 'mcp-param-region': b64 })),
    ).toBeUndefined();
    expect(
      paramHeaderMismatch(schema, { count: 42 }, headers({ 'Mcp-Param-Count': '42.0' })),
    ).toBeUndefined();
    // No value in the body: no header expected, and one sent is ignored.
    expect(paramHeaderMismatch(schema, {}, headers({ 'Mcp-Param-Region': 'x' }))).toBeUndefined();
  });

  it('refuses a missing header, bad Base64 and a disagreement, naming the header', () => {
    expect(paramHeaderMismatch(schema, { nested: { zone: 'a' } }, headers({}))).toEqual({
      header: 'Mcp-Param-Zone',
      problem: 'the arguments carry nested.zone="a" but the Mcp-Param-Zone header is absent',
    });
    expect(
      paramHeaderMismatch(schema, { region: 'Hello' }, headers({ 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }))
        ?.problem,
    ).toContain('not canonical Base64');
    expect(paramHeaderMismatch(schema, { region: 'a' }, headers({ 'Mcp-Param-Region': 'b' }))?.problem).toBe(
      'the Mcp-Param-Region header says "b" but the arguments carry region="a"',
    );
  });
});
