import { describe, expect, it } from 'vitest';
import { textOf, useHosts } from './project.js';

describe.each(['inline', 'process'] as const)('invalid input to a plugin tool (%s sandbox)', (sandbox) => {
  const h = useHosts();

  it("is refused on the host in its JSON Schema's words, without a trip into the isolate", async () => {
    const made = await h.project(['healthy', 'defaults']);
    const host = await h.hostFor(made.root, { sandbox });
    const session = host.session();

    const wrongType = await session.call('healthy_echo', { text: 42 });
    expect(wrongType.status).toBe('invalid-input');
    expect(textOf(wrongType.result)).toBe(
      'Invalid input for tool "healthy_echo": at "text": expected string, received number',
    );
    const notListed = await session.call('greet', { name: 'Ada', tone: 'rude' });
    expect(textOf(notListed.result)).toBe(
      'Invalid input for tool "greet": at "tone": must be one of "plain", "warm"',
    );
    // Isolates are made on a plugin's first call into them: none was made for these calls.
    expect(await host.isolates()).toMatchObject({ live: 0 });

    expect(textOf((await session.call('healthy_echo', { text: 'hi' })).result)).toBe('echo: hi');
    expect(await host.isolates()).toMatchObject({ live: 1 });
  });
});
