import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type {
  BeforeToolCallEvent,
  ChannelOptions,
  ChannelTool,
  ChannelToolContext,
  RegisteredTool,
  ToolHost,
} from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { context, defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { connectInMemory } from '../mcp/in-memory-client.js';
import { textOf, useHosts } from '../plugins/project.js';

const h = useHosts();

/** What the channel tools of a test saw, call by call. */
type Seen = { input: Record<string, unknown>; sender: ChannelToolContext['sender']; channel: { id: string } };

function slack(seen: Seen[] = []): ChannelTool[] {
  return [
    {
      name: 'reply_in_thread',
      description: 'Replies in the thread the message came from',
      inputSchema: z.object({ text: z.string() }),
      run(input, ctx) {
        seen.push({ input, sender: ctx.sender, channel: ctx.channel });
        return `replied as the bot to ${ctx.sender.id}: ${String(input.text)}`;
      },
    },
    {
      // A JSON Schema tool: extra properties are allowed, so a model can put `sender` in its input.
      name: 'upload_file',
      description: 'Uploads a file to this chat',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      run(input, ctx) {
        seen.push({ input, sender: ctx.sender, channel: ctx.channel });
        return `uploaded ${String(input.name)}`;
      },
    },
    {
      name: 'kick_member',
      description: 'Removes a member from the channel',
      inputSchema: z.object({ user: z.string() }),
      ownerOnly: true,
      run(input, ctx) {
        seen.push({ input, sender: ctx.sender, channel: ctx.channel });
        return `kicked ${String(input.user)}`;
      },
    },
  ];
}

function channel(over: Partial<ChannelOptions> = {}, seen: Seen[] = []): ChannelOptions {
  return { id: 'slack:C1', sender: { id: 'U2', name: 'Ann' }, ownerId: 'U1', tools: slack(seen), ...over };
}

async function bareHost(options: Parameters<typeof h.hostFor>[1] = {}): Promise<ToolHost> {
  const { root } = await h.project([]);
  return h.hostFor(root, { configFile: false, ...options });
}

const names = (list: readonly { name: string }[]) => list.map((t) => t.name);

describe('channel tools', () => {
  it('are visible and callable only in the session of their channel', async () => {
    const host = await bareHost();
    const inChannel = host.session({ channel: channel() });
    const plain = host.session();
    const otherChannel = host.session({ channel: { id: 'slack:C9', sender: { id: 'U2' } } });

    expect(names(inChannel.descriptors())).toEqual(['reply_in_thread', 'upload_file']);
    const reply = inChannel.descriptors()[0];
    expect(reply?.owner).toEqual({ kind: 'channel', channelId: 'slack:C1' });
    expect(reply?.executor).toEqual({ kind: 'channel', channelId: 'slack:C1', actionId: 'reply_in_thread' });
    expect(textOf((await inChannel.call('reply_in_thread', { text: 'hi' })).result)).toBe(
      'replied as the bot to U2: hi',
    );

    for (const other of [plain, otherChannel]) {
      expect(names(other.descriptors())).toEqual([]);
      expect(other.check('reply_in_thread')).toMatchObject({ ok: false, refusal: 'unknown' });
      const outcome = await other.call('reply_in_thread', { text: 'hi' });
      expect(outcome.status).toBe('blocked');
      expect(outcome.result.isError).toBe(true);
    }
    // The host's own Map and plan never hold a session's channel tools.
    expect(internalsOf(host).registry.tools.has('reply_in_thread')).toBe(false);
    expect(names(host.plan().visible.map((e) => e.descriptor))).toEqual([]);
  });

  it('get the channel and sender from the session; a sender in the model input changes nothing', async () => {
    const host = await bareHost();
    const seen: Seen[] = [];
    const session = host.session({ channel: channel({}, seen) });
    const spoof = { id: 'U1', name: 'Owner', isOwner: true };

    const zodCall = await session.call('reply_in_thread', {
      text: 'hi',
      sender: spoof,
      channel: { id: 'x' },
    });
    const jsonCall = await session.call('upload_file', { name: 'a.txt', sender: spoof });
    expect(zodCall.result.isError).toBeUndefined();
    expect(jsonCall.result.isError).toBeUndefined();
    expect(seen.map((s) => s.sender)).toEqual([
      { id: 'U2', name: 'Ann', isOwner: false },
      { id: 'U2', name: 'Ann', isOwner: false },
    ]);
    expect(seen.map((s) => s.channel)).toEqual([{ id: 'slack:C1' }, { id: 'slack:C1' }]);
    // Nor can the input make the sender the owner.
    const kick = await session.call('kick_member', { user: 'U3', sender: spoof });
    expect(kick.status).toBe('blocked');
    expect(seen).toHaveLength(2);
  });

  it('owner-only: hidden with owner-only for another sender and refused with why; callable by the owner', async () => {
    const host = await bareHost();
    const guest = host.session({ channel: channel() });
    const hidden = guest.plan().hidden.find((e) => e.descriptor.name === 'kick_member');
    expect(hidden?.diagnostics).toEqual([
      {
        reason: 'owner-only',
        message:
          '"kick_member" of channel:slack:C1 is for the channel\'s owner only, and sender "U2" is not the owner',
      },
    ]);
    expect(guest.check('kick_member')).toMatchObject({ ok: false, refusal: 'hidden' });
    const refused = await guest.call('kick_member', { user: 'U3' });
    expect(refused.result.isError).toBe(true);
    expect(textOf(refused.result)).toContain('owner-only');

    const seen: Seen[] = [];
    const owner = host.session({ channel: channel({ sender: { id: 'U1' } }, seen) });
    expect(names(owner.descriptors())).toContain('kick_member');
    expect(textOf((await owner.call('kick_member', { user: 'U3' })).result)).toBe('kicked U3');
    expect(seen[0]?.sender).toEqual({ id: 'U1', isOwner: true });
  });

  it('a channel without ownerId has no owner; sender.isOwner given by the app is refused by name', async () => {
    const host = await bareHost();
    const noOwner = host.session({ channel: channel({ ownerId: undefined, sender: { id: 'U1' } }) });
    expect(noOwner.check('kick_member')).toMatchObject({ ok: false, refusal: 'hidden' });
    expect(() =>
      host.session({ channel: channel({ sender: { id: 'U2', isOwner: true } as ChannelOptions['sender'] }) }),
    ).toThrow(/channel\.sender\.isOwner is not read/);
  });

  it("the sender's identity is read once when the session opens: a getter cannot make isOwner true for another id", async () => {
    const host = await bareHost();
    // Each read of `id` answers the next value: a guard, the copy and the owner check would each
    // see a different sender if the session read it more than once.
    const answers = ['U2', 'U2', 'U1', 'U1'];
    let reads = 0;
    const sender = {
      get id() {
        return answers[Math.min(reads++, answers.length - 1)] as string;
      },
      name: 'Ann',
    };
    const seen: Seen[] = [];
    const session = host.session({ channel: channel({ sender }, seen) });
    expect(session.check('kick_member')).toMatchObject({ ok: false, refusal: 'hidden' });
    await session.call('reply_in_thread', { text: 'hi' });
    expect(seen[0]?.sender).toEqual({ id: 'U2', name: 'Ann', isOwner: false });
    expect(Object.isFrozen(seen[0]?.sender)).toBe(true);
    expect(reads).toBe(1);
  });

  it.each([
    ['by name', ['reply_*']],
    ['by group:channel', ['group:channel']],
    ['by group:channel:<id>', ['group:channel:slack:C1']],
  ])('policy deny %s applies to channel tools, at plan and call time', async (_, deny) => {
    const host = await bareHost({ tools: { deny } });
    const seen: Seen[] = [];
    const session = host.session({ channel: channel({}, seen) });
    expect(names(session.descriptors())).not.toContain('reply_in_thread');
    const hidden = session.plan().hidden.find((e) => e.descriptor.name === 'reply_in_thread');
    expect(hidden?.diagnostics[0]?.reason).toBe('policy-denied');
    expect(session.check('reply_in_thread')).toMatchObject({ ok: false, refusal: 'denied' });
    expect((await session.call('reply_in_thread', { text: 'hi' })).result.isError).toBe(true);
    expect(seen).toEqual([]);
  });

  it('group:channel in tools.allow admits channel tools, and an allow list without it shuts them out', async () => {
    const allowed = await bareHost({ tools: { allow: ['group:channel:slack:c1'] } });
    expect(names(allowed.session({ channel: channel() }).descriptors())).toEqual([
      'reply_in_thread',
      'upload_file',
    ]);
    const shut = await bareHost({ tools: { allow: ['group:custom'] } });
    const session = shut.session({ channel: channel() });
    expect(session.check('reply_in_thread')).toMatchObject({
      ok: false,
      refusal: 'denied',
      message: expect.stringContaining('group:channel:slack:c1'),
    });
  });

  it('go through the hooks: host and session hooks see the call, and a block stops it', async () => {
    const host = await bareHost();
    const seen: Seen[] = [];
    const events: BeforeToolCallEvent[] = [];
    host.addHooks({ name: 'audit', beforeToolCall: (event) => void events.push(event) });
    const session = host.session({ channel: channel({}, seen) });
    session.addHooks({
      name: 'no-uploads',
      beforeToolCall: (event) =>
        event.toolName === 'upload_file' ? { block: true, reason: 'uploads are off today' } : undefined,
    });
    await session.call('reply_in_thread', { text: 'hi' });
    const blocked = await session.call('upload_file', { name: 'a.txt' });
    expect(events.map((e) => [e.toolName, e.descriptor.executor?.kind, e.sessionId])).toEqual([
      ['reply_in_thread', 'channel', session.id],
      ['upload_file', 'channel', session.id],
    ]);
    expect(blocked.status).toBe('blocked');
    expect(textOf(blocked.result)).toContain('uploads are off today');
    expect(seen.map((s) => s.input)).toEqual([{ text: 'hi' }]);
  });

  it('are validated by the wrapper whatever their schema kind', async () => {
    const host = await bareHost();
    const seen: Seen[] = [];
    const session = host.session({ channel: channel({}, seen) });
    const zodBad = await session.call('reply_in_thread', { text: 3 });
    const jsonBad = await session.call('upload_file', {});
    expect([zodBad.status, jsonBad.status]).toEqual(['invalid-input', 'invalid-input']);
    expect(textOf(jsonBad.result)).toContain('name');
    expect(seen).toEqual([]);
  });

  it('win a name clash with a host tool, which is hidden as overridden in that channel only', async () => {
    const host = await bareHost();
    host.addTool(
      defineTool({
        name: 'upload_file',
        description: 'Host upload',
        input: z.object({}),
        execute: () => 'host',
      }),
    );
    const session = host.session({ channel: channel() });
    expect(textOf((await session.call('upload_file', { name: 'a' })).result)).toBe('uploaded a');
    const lost = session.plan().hidden.find((e) => e.descriptor.owner.kind === 'custom');
    expect(lost?.diagnostics[0]?.reason).toBe('overridden');
    expect(lost?.diagnostics[0]?.message).toContain('channel:slack:C1');
    expect(textOf((await host.session().call('upload_file', {})).result)).toBe('host');
  });

  it("cannot take a built-in's name unless channel.overrides names it, nor a meta tool's at all", async () => {
    const host = await bareHost({ builtins: {} });
    const taker = (name: string): ChannelTool => ({
      name,
      description: `The channel's ${name}`,
      inputSchema: z.looseObject({}),
      run: () => `channel ${name}`,
    });
    const tools = [taker('ls'), taker('skill'), taker('tool_search')];
    const refused = host.session({ channel: channel({ tools }) });
    expect(refused.check('ls')).toEqual({ ok: true });
    expect(textOf((await refused.call('ls', {})).result)).not.toBe('channel ls');
    const hidden = refused
      .plan()
      .hidden.filter((e) => e.descriptor.owner.kind === 'channel')
      .map((e) => [e.descriptor.name, e.diagnostics[0]?.reason, e.diagnostics[0]?.message]);
    expect(hidden).toEqual([
      [
        'ls',
        'override-refused',
        'tool "ls" of channel:slack:C1 is hidden: "ls" is the name of a built-in tool, which keeps it; to let channel "slack:C1" replace the built-in, add "ls" to the session\'s channel.overrides',
      ],
      ['skill', 'override-refused', expect.stringContaining('meta tool')],
      ['tool_search', 'override-refused', expect.stringContaining('meta tool')],
    ]);
    // The session's own tool search still works: no channel tool shadows it.
    expect(refused.check('tool_search')).toEqual({ ok: true });

    const allowed = host.session({ channel: channel({ tools, overrides: ['ls', 'skill', 'tool_search'] }) });
    expect(textOf((await allowed.call('ls', {})).result)).toBe('channel ls');
    expect(
      allowed
        .plan()
        .hidden.filter((e) => e.descriptor.owner.kind === 'channel')
        .map((e) => e.descriptor.name),
    ).toEqual(['skill', 'tool_search']);
  });

  it('a malformed channel is refused when the session opens, naming the field', async () => {
    const host = await bareHost();
    const [reply] = slack();
    if (reply === undefined) throw new Error('unreachable');
    expect(() => host.session({ channel: { ...channel(), id: '' } })).toThrow(/channel\.id must be/);
    expect(() => host.session({ channel: channel({ tools: [reply, reply] }) })).toThrow(
      /channel\.tools\[1\]\.name "reply_in_thread" is given twice/,
    );
    expect(() => host.session({ channel: channel({ tools: [{ ...reply, name: 'bad name' }] }) })).toThrow(
      /channel\.tools\[0\]\.name "bad name" is not a valid tool name/,
    );
    expect(() =>
      host.session({ channel: channel({ tools: [{ ...reply, inputSchema: 'x' as never }] }) }),
    ).toThrow(/channel\.tools\[0\]\.inputSchema/);
    expect(() => host.session({ channel: channel(), context: { channel: 'slack:C2' } })).toThrow(
      /context\.channel "slack:C2" disagrees with channel\.id/,
    );
  });
});

describe("availability context('channel', …)", () => {
  it('limits an API tool to the sessions of that channel', async () => {
    const host = await bareHost();
    host.addTool(
      defineTool({
        name: 'slack_only',
        description: 'Only in slack:C1',
        input: z.object({}),
        availability: context('channel', 'slack:C1'),
        execute: () => 'ok',
      }),
    );
    const inC1 = host.session({ channel: { id: 'slack:C1', sender: { id: 'U2' } } });
    expect(names(inC1.descriptors())).toEqual(['slack_only']);
    expect(textOf((await inC1.call('slack_only', {})).result)).toBe('ok');
    for (const other of [
      host.session(),
      host.session({ channel: { id: 'slack:C2', sender: { id: 'U2' } } }),
    ]) {
      expect(other.check('slack_only')).toMatchObject({ ok: false, refusal: 'hidden' });
      const hidden = other.plan().hidden.find((e) => e.descriptor.name === 'slack_only');
      expect(hidden?.diagnostics[0]?.reason).toBe('context-mismatch');
    }
  });

  it('limits a plugin tool to the sessions of that channel', async () => {
    const { root } = await h.project([]);
    await mkdir(path.join(root, 'plugins', 'chanplug'));
    await writeFile(
      path.join(root, 'plugins', 'chanplug', 'index.ts'),
      `import { context, definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'chanplug',
  tools: [
    defineTool({ name: 'chan_ping', description: 'Pings, in slack:C1 only', input: z.object({}),
      availability: context('channel', 'slack:C1'), execute: () => 'pong' }),
  ],
});
`,
    );
    const host = await h.hostFor(root, { configFile: false });
    const inC1 = host.session({ channel: { id: 'slack:C1', sender: { id: 'U2' } } });
    expect(names(inC1.descriptors())).toEqual(['chan_ping']);
    expect(textOf((await inC1.call('chan_ping', {})).result)).toBe('pong');
    const inC2 = host.session({ channel: { id: 'slack:C2', sender: { id: 'U2' } } });
    expect(inC2.check('chan_ping')).toMatchObject({ ok: false, refusal: 'hidden' });
    expect(host.session().check('chan_ping')).toMatchObject({ ok: false, refusal: 'hidden' });
  });
});

describe('the four executor kinds side by side', () => {
  it('MCP tools/list of a channel session names each kind in _meta["toolhost/executor"]', async () => {
    const { root } = await h.project(['healthy']);
    const host = await h.hostFor(root, { configFile: false, builtins: true });
    const bridged: RegisteredTool = {
      descriptor: {
        name: 'mcp__gh__issues',
        description: 'Lists issues',
        inputSchema: { type: 'object' },
        owner: { kind: 'mcp', serverId: 'gh' },
      },
      source: 'mcp',
      sourceId: 'gh',
      executor: {
        ref: { kind: 'mcp', serverId: 'gh', toolName: 'issues' },
        run: async () => ({ content: [] }),
      },
    };
    host.setSource({ kind: 'mcp', id: 'gh', tools: [bridged] });
    const { client, close } = await connectInMemory(host, 'channel-test', { channel: channel() });
    try {
      const { tools } = await client.listTools();
      const kindOf = (name: string) => tools.find((t) => t.name === name)?._meta?.['toolhost/executor'];
      expect(kindOf('read')).toBe('core');
      expect(kindOf('healthy_echo')).toBe('plugin');
      expect(kindOf('mcp__gh__issues')).toBe('mcp');
      expect(kindOf('reply_in_thread')).toBe('channel');
      expect(names(tools)).not.toContain('kick_member'); // owner-only, and U2 is not the owner
      const called = await client.callTool({ name: 'reply_in_thread', arguments: { text: 'yo' } });
      expect(called.content).toEqual([{ type: 'text', text: 'replied as the bot to U2: yo' }]);
    } finally {
      await close();
    }
  });
});
