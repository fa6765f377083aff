import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { definePlugin, defineTool, MAX_DESCRIPTION_CHARS, MAX_TOOLS_PER_PLUGIN } from '../src/index.js';

const tool = (name: string, description = 'd') =>
  defineTool({ name, description, input: z.object({}), execute: () => '' });
const tools = (n: number) => Array.from({ length: n }, (_, i) => tool(`t${i}`));

describe('size limits of a plugin', () => {
  it('allows exactly MAX_TOOLS_PER_PLUGIN tools and refuses one more, naming the count and the limit', () => {
    expect(MAX_TOOLS_PER_PLUGIN).toBe(256);
    expect(definePlugin({ id: 'big', tools: tools(256) }).tools).toHaveLength(256);
    expect(() => definePlugin({ id: 'big', tools: tools(257) })).toThrow(
      'Plugin "big" declares 257 tools; a plugin may declare at most 256 (MAX_TOOLS_PER_PLUGIN): split it into several plugins',
    );
  });

  it('allows a description of exactly MAX_DESCRIPTION_CHARS and refuses a longer one, naming the tool', () => {
    expect(MAX_DESCRIPTION_CHARS).toBe(10_000);
    expect(tool('ok', 'x'.repeat(10_000)).description).toHaveLength(10_000);
    expect(() => tool('wordy', 'x'.repeat(10_001))).toThrow(
      'Tool "wordy" has a description of 10001 characters; the limit is 10000 (MAX_DESCRIPTION_CHARS): shorten it',
    );
    expect(() => definePlugin({ id: 'p', description: 'x'.repeat(10_001), tools: [] })).toThrow(
      /^Plugin "p" has a description of 10001 characters/,
    );
  });
});
