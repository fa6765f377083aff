import { describe, expect, it } from 'vitest';
import { addToJson } from '../../src/cli/json-edit.js';

/** One-line lists, comments, odd spacing: everything but the granted key must survive to the byte. */
const JSONC = `{
  // the operator's note, kept
  "tools": { "deny": ["exec",   "write"] }, /* and this */
  "plugins": {
    "notes": {
      "grants": { "net": ["api.example.com"] }
    }
  }
}
`;

describe('addToJson', () => {
  it('changes only the granted key of a file with comments and one-line lists', () => {
    const after = addToJson(JSONC, {
      plugins: { notes: { grants: { net: ['api.example.com', 'b.example.com'] } } },
    });
    expect(after).toBe(JSONC.replace('["api.example.com"]', '["api.example.com", "b.example.com"]'));
  });

  it('gives a new key of an object written over lines lines of its own, at the file indentation', () => {
    const after = addToJson(JSONC, { plugins: { weather: { grants: { env: ['KEY'] } } } });
    expect(after).toBe(
      JSONC.replace(
        '      "grants": { "net": ["api.example.com"] }\n    }\n',
        '      "grants": { "net": ["api.example.com"] }\n    },\n    "weather": {\n      "grants": {\n        "env": [\n          "KEY"\n        ]\n      }\n    }\n',
      ),
    );
  });

  it('leaves a file unchanged when everything is there already', () => {
    expect(addToJson(JSONC, { tools: { deny: ['write'] } })).toBe(JSONC);
  });

  it('writes a new file two-space indented with a final newline', () => {
    expect(addToJson(undefined, { a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}\n');
  });
});
