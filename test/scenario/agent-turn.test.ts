import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, type ToolHost } from '@toolhost/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

describe('a whole agent turn', () => {
  let root: string;
  let host: ToolHost;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolhost-turn-'));
    await writeFile(join(root, 'notes.txt'), 'buy milk\n');
    host = await createHost({
      root,
      availability: { env: {} },
      hooks: [
        {
          name: 'read-only-mode',
          beforeToolCall: (event) =>
            event.descriptor.annotations?.readOnlyHint === true
              ? undefined
              : { block: true, reason: 'this session is read-only' },
        },
      ],
    });
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('answers four tool_use blocks with four tool_result blocks, in order', async () => {
    const session = host.session();
    const assistant = [
      { type: 'text', text: 'Let me look around.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'notes.txt' } },
      { type: 'tool_use', id: 'toolu_2', name: 'deploy', input: {} },
      { type: 'tool_use', id: 'toolu_3', name: 'write', input: { path: 'notes.txt', content: 'pwned' } },
      { type: 'tool_use', id: 'toolu_4', name: 'read', input: { file: 'notes.txt' } },
    ];

    const results = await session.dispatchAll(assistant);

    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4']);
    expect(results.map((r) => r.is_error === true)).toEqual([false, true, true, true]);
    const texts = results.map((r) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
    expect(texts[0]).toContain('buy milk');
    expect(texts[1]).toMatch(/^Unknown tool "deploy"\. Tools available in this session: .*read/);
    expect(texts[2]).toBe('Tool "write" was blocked by hook "read-only-mode": this session is read-only');
    expect(texts[3]).toMatch(/^Invalid input for tool "read": at "path": /);
    // The blocked write never ran.
    expect(await readFile(join(root, 'notes.txt'), 'utf8')).toBe('buy milk\n');
  });

  it('hands the model its tools and a prompt section', () => {
    const session = host.session();
    const names = session.tools('anthropic').map((t) => t.name);
    expect(names).toEqual(['edit', 'grep', 'ls', 'read', 'write']);
    expect(session.systemPromptSection()).toBe(''); // every tool is visible: the list says it all
  });
});
