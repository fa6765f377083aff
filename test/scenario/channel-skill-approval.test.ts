/**
 * The tool system's newest parts meeting in one turn: a chat channel's session, a skill the model
 * invokes through the `skill` tool, the skill's dispatch to a channel tool, and that tool needing a
 * person's approval. Three sessions of one host: one on a channel whose tools policy denies, one
 * whose approver allows, one whose approver never answers. Everything goes through the public API.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnthropicToolResultBlock,
  type ApprovalEvent,
  type ApprovalRequest,
  type ChannelOptions,
  type ChannelToolContext,
  createHost,
  type ToolHost,
} from '@toolhost/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';

/** Each announcement the channel tool made: what, where, and who asked (as the host injected it). */
type Posted = { text: string; channel: string; sender: string };

function releaseChannel(id: string, posted: Posted[]): ChannelOptions {
  return {
    id,
    sender: { id: 'U42', name: 'Dana' },
    ownerId: 'U1',
    tools: [
      {
        name: 'announce',
        description: 'Posts an announcement to every member of this channel',
        inputSchema: z.object({ command: z.string(), commandName: z.string(), skillName: z.string() }),
        requireApproval: { reason: 'reaches every member of the channel', severity: 'warning' },
        run(input, ctx: ChannelToolContext) {
          posted.push({ text: String(input.command), channel: ctx.channel.id, sender: ctx.sender.id });
          return `announced in ${ctx.channel.id}: ${String(input.command)}`;
        },
      },
    ],
  };
}

const SKILL = `---
name: release-notes
description: Announces a release to the channel
command-dispatch: tool
command-tool: announce
command-arg-mode: raw
---
Announce the release with its version and one line on what changed.
`;

/** The model's turn: it invokes the skill through the `skill` tool, as a tool_use block. */
const invokeSkill = (id: string) => ({
  type: 'tool_use' as const,
  id,
  name: 'skill',
  input: { name: 'release-notes', arguments: 'v2.1 is out: faster search' },
});

const textOf = (block: AnthropicToolResultBlock) =>
  (typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : block.content)
    .map((c) => ('text' in c ? c.text : ''))
    .join('');

describe('a channel session, a skill, a tool that needs approval', () => {
  let root: string;
  let host: ToolHost;
  let posted: Posted[];
  let events: ApprovalEvent[];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolhost-scenario-'));
    await mkdir(join(root, 'skills', 'release-notes'), { recursive: true });
    await writeFile(join(root, 'skills', 'release-notes', 'SKILL.md'), SKILL);
    posted = [];
    events = [];
    host = await createHost({
      root,
      configFile: false,
      pluginsDir: false,
      builtins: false,
      // The public channel may not use its channel tools at all; approvals time out quickly here.
      tools: { deny: ['group:channel:slack:C-public'] },
      approvals: { timeoutMs: 300 },
    });
    host.on('approval', (event) => events.push(event));
  });

  afterEach(async () => {
    await host.close();
    await rm(root, { recursive: true, force: true });
  });

  it('the model sees the skill in its prompt and the skill tool beside the channel tool', () => {
    const session = host.session({ channel: releaseChannel('slack:C-team', posted) });
    expect(session.systemPromptSection()).toContain('release-notes');
    expect(session.systemPromptSection()).toContain('Announces a release to the channel');
    expect(session.descriptors().map((d) => d.name)).toEqual(['announce', 'skill']);
  });

  it('denied by policy on one channel: the skill cannot reach the tool, and nobody is asked', async () => {
    const asked: ApprovalRequest[] = [];
    const session = host.session({
      channel: releaseChannel('slack:C-public', posted),
      onApproval: async (request) => {
        asked.push(request);
        return 'allow-once';
      },
    });
    // The channel tool is denied here; the skill tool stays (other skills may be usable), but the
    // prompt leaves out a skill whose tool this session cannot call.
    expect(session.descriptors().map((d) => d.name)).toEqual(['skill']);
    expect(session.systemPromptSection()).not.toContain('release-notes');
    expect(session.check('announce')).toMatchObject({ ok: false, refusal: 'denied' });

    const [result] = await session.dispatchAll([invokeSkill('toolu_public')]);

    expect(result?.is_error).toBe(true);
    // The model learns the skill's tool is denied, and by which pattern.
    const text = textOf(result as AnthropicToolResultBlock);
    expect(text).toContain('Skill "release-notes"');
    expect(text).toContain('cannot call');
    expect(text).toContain('tools.deny pattern "group:channel:slack:C-public"');
    expect(asked).toEqual([]);
    expect(posted).toEqual([]);
    expect(events).toEqual([]);
  });

  it('approved in another: the approver sees the frozen input, the tool runs once with the injected sender', async () => {
    const asked: ApprovalRequest[] = [];
    const session = host.session({
      channel: releaseChannel('slack:C-team', posted),
      onApproval: async (request) => {
        asked.push(request);
        return 'allow-once';
      },
    });

    const [result] = await session.dispatchAll([invokeSkill('toolu_team')]);

    expect(result?.is_error).toBeUndefined();
    expect(textOf(result as AnthropicToolResultBlock)).toBe(
      'announced in slack:C-team: v2.1 is out: faster search',
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sessionId: session.id,
      tool: 'announce',
      input: {
        command: 'v2.1 is out: faster search',
        commandName: 'release-notes',
        skillName: 'release-notes',
      },
      reason: 'reaches every member of the channel',
      severity: 'warning',
      source: 'descriptor',
    });
    expect(posted).toEqual([{ text: 'v2.1 is out: faster search', channel: 'slack:C-team', sender: 'U42' }]);
    const decided = events.find((e) => e.type === 'decided');
    expect(decided).toMatchObject({ type: 'decided', decision: 'allow-once', by: 'onApproval' });
  });

  it('auto-denied on timeout in a third: the model gets an error saying why, and nothing ran', async () => {
    let askedSignal: AbortSignal | undefined;
    const session = host.session({
      channel: releaseChannel('slack:C-team', posted),
      // A person who never answers: the request stays open until the host gives up on it.
      onApproval: (request) => {
        askedSignal = request.signal;
        return new Promise(() => {});
      },
    });

    const [result] = await session.dispatchAll([invokeSkill('toolu_late')]);

    expect(result?.is_error).toBe(true);
    const text = textOf(result as AnthropicToolResultBlock);
    expect(text).toContain('"announce" was not approved');
    expect(text).toContain('within 300 ms (approvals.timeoutMs)');
    expect(askedSignal?.aborted).toBe(true);
    expect(posted).toEqual([]);
    const decided = events.find((e) => e.type === 'decided');
    expect(decided).toMatchObject({ type: 'decided', decision: 'timeout', by: 'timeout' });
  });
});
