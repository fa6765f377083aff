/**
 * Channel tools: tools the embedding app (a Slack bot, a CLI, a web chat) hands to one session,
 * owned by the channel that session runs on. They join the session's view of the host's Map
 * through the same gates as every other tool (name rule, policy, availability, the planner, the
 * wrapper), and their executors get the channel and the sender from the session options — never
 * from the model's input.
 */
import {
  type AvailabilityExpression,
  type ContentBlock,
  type JsonSchema,
  normalizeToolReturn,
  TOOL_NAME_PATTERN,
  type ToolAnnotations,
  type ToolApprovalRequirement,
  type ToolDescriptor,
  type ToolDiagnostic,
  type ToolExecutorRef,
  type ToolResult,
  toJsonSchema,
} from '@toolhost/plugin-sdk';
import type * as z from 'zod';
import type {
  ExecutionContext,
  InputCheck,
  RegisteredTool,
  Registry,
  ToolPolicy,
  ToolSource,
} from '../../types.js';
import { zodIssues } from '../../util/zod-issues.js';
import { formatOwner } from '../refs.js';
import { buildRegistry } from '../register/registry.js';

/** Who wrote the message the session answers, as the embedding app knows them. */
export interface ChannelSender {
  /** The sender's id on the channel's platform (a Slack user id, a login). */
  readonly id: string;
  /** A display name. */
  readonly name?: string;
}

/** The channel and sender a channel tool's executor receives, filled in by the host. */
export interface ChannelCallContext {
  readonly channel: { readonly id: string };
  /** `isOwner` is `sender.id === channel.ownerId` (false when the channel has no owner). */
  readonly sender: { readonly id: string; readonly name?: string; readonly isOwner: boolean };
}

/** What a channel tool's `run` receives beside its input. */
export interface ChannelToolContext extends ExecutionContext, ChannelCallContext {}

/** What a channel tool's `run` may return: a string, content blocks, or a result object. */
export type ChannelToolReturn =
  | string
  | readonly ContentBlock[]
  | {
      readonly content?: readonly ContentBlock[];
      readonly structuredContent?: Readonly<Record<string, unknown>>;
      readonly isError?: boolean;
    };

/** A tool the embedding app supplies for one channel session. */
export interface ChannelTool {
  /** Unique name the model calls: 1-64 letters, digits, `_` or `-`. */
  readonly name: string;
  readonly title?: string;
  /** What the tool does, written for the model. */
  readonly description: string;
  /**
   * The input: a zod object schema (`run` gets its parsed output) or a JSON Schema object (the
   * wrapper validates against it, defaults applied).
   */
  readonly inputSchema: z.ZodObject | JsonSchema;
  /** When the tool may be shown; default `always`. */
  readonly availability?: AvailabilityExpression;
  /** MCP behaviour hints. */
  readonly annotations?: ToolAnnotations;
  /** Visible and callable only when the sender is the channel's owner (`sender.id === ownerId`). */
  readonly ownerOnly?: boolean;
  /** A person approves each call before it runs (see `ToolDescriptor.requireApproval`). */
  readonly requireApproval?: ToolApprovalRequirement;
  /** Does the work. Throwing yields an `is_error` result with the error's message. */
  run(
    input: Record<string, unknown>,
    ctx: ChannelToolContext,
  ): ChannelToolReturn | Promise<ChannelToolReturn>;
}

/** `SessionOptions.channel`: the channel a session runs on, who is speaking, and its tools. */
export interface ChannelOptions {
  /** The channel's id, e.g. `slack:C0123`; availability `context('channel', id)` sees it. */
  readonly id: string;
  /** Who the session answers. Injected into channel tools' context; the model cannot change it. */
  readonly sender: ChannelSender;
  /** The sender id of the channel's owner; without it nobody is the owner. */
  readonly ownerId?: string;
  /** Tools that exist only in this session. */
  readonly tools?: readonly ChannelTool[];
  /**
   * Built-in tools (exact names) the channel's tools of the same name replace in this session;
   * without it a channel tool named like a built-in is hidden (`override-refused`). Meta tools
   * (`skill`, `tool_search`, `run_code`, `describe_tools`) are never replaced.
   */
  readonly overrides?: readonly string[];
}

/** The availability context key a channel session sets to its channel id. */
export const CHANNEL_CONTEXT_KEY = 'channel';

/** A checked channel: its call context and its tools as registered tools, made once per session. */
export interface PreparedChannel {
  readonly id: string;
  readonly call: ChannelCallContext;
  readonly tools: readonly RegisteredTool[];
  /** Names of owner-only tools, hidden from a sender who is not the owner. */
  readonly ownerOnly: ReadonlySet<string>;
  /** Built-in names the channel's tools may take (`channel.overrides`). */
  readonly overrides: readonly string[];
}

function isZodSchema(schema: unknown): schema is z.ZodObject {
  // No instanceof: the app may bundle its own copy of zod.
  return (
    typeof schema === 'object' &&
    schema !== null &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function'
  );
}

function checkWithZod(schema: z.ZodObject, value: unknown): InputCheck {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: zodIssues(parsed.error) };
}

function fail(where: string, what: string): never {
  throw new TypeError(`host.session({channel}): ${where} ${what}`);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * The executor's context for one call: the wrapper's fields read through (so a tool that never
 * reads `signal` costs its call nothing more), the channel and sender fixed by the session.
 */
class ChannelContext implements ChannelToolContext {
  readonly #call: ExecutionContext;
  readonly channel: ChannelCallContext['channel'];
  readonly sender: ChannelCallContext['sender'];

  constructor(call: ExecutionContext, channel: ChannelCallContext) {
    this.#call = call;
    this.channel = channel.channel;
    this.sender = channel.sender;
  }

  get toolUseId(): string {
    return this.#call.toolUseId;
  }

  get sessionId(): string {
    return this.#call.sessionId;
  }

  get signal(): ExecutionContext['signal'] {
    return this.#call.signal;
  }

  get log(): ExecutionContext['log'] {
    return this.#call.log;
  }

  readonly progress = (done: number, total?: number, message?: string): void =>
    this.#call.progress(done, total, message);
}

function channelTool(
  tool: ChannelTool,
  index: number,
  channelId: string,
  call: ChannelCallContext,
): RegisteredTool {
  const where = `channel.tools[${index}]`;
  if (typeof tool !== 'object' || tool === null) fail(where, 'is not a tool object');
  // Each field once (see prepareChannel): a getter must not pass a check as one value and run as another.
  const {
    name,
    title,
    description,
    inputSchema: schema,
    availability,
    annotations,
    requireApproval,
    run,
  } = tool;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    fail(
      `${where}.name`,
      `${JSON.stringify(name)} is not a valid tool name (1-64 letters, digits, "_" or "-")`,
    );
  }
  if (!nonEmptyString(description)) fail(`${where}.description`, `of "${name}" must be a non-empty string`);
  if (typeof run !== 'function') fail(`${where}.run`, `of "${name}" must be a function`);
  const zod = isZodSchema(schema) ? schema : undefined;
  if (zod === undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    fail(`${where}.inputSchema`, `of "${name}" must be a zod object schema or a JSON Schema object`);
  }
  const inputSchema = zod === undefined ? (schema as JsonSchema) : toJsonSchema(zod, 'input');
  if (inputSchema.type !== 'object') {
    fail(`${where}.inputSchema`, `of "${name}" must describe an object (type "object")`);
  }
  const ref: ToolExecutorRef = { kind: 'channel', channelId, actionId: name };
  const descriptor: ToolDescriptor = {
    name: name,
    ...(title === undefined ? {} : { title: title }),
    description: description,
    inputSchema,
    owner: { kind: 'channel', channelId },
    executor: ref,
    ...(availability === undefined ? {} : { availability: availability }),
    ...(annotations === undefined ? {} : { annotations: annotations }),
    ...(requireApproval === undefined ? {} : { requireApproval: requireApproval }),
  };
  return {
    descriptor,
    source: 'channel',
    sourceId: channelId,
    executor: {
      ref,
      // A JSON Schema tool is validated by the wrapper against `descriptor.inputSchema`.
      ...(zod === undefined ? {} : { validateInput: (input: unknown) => checkWithZod(zod, input) }),
      async run(input, ctx): Promise<ToolResult> {
        return normalizeToolReturn(
          await run(input as Record<string, unknown>, new ChannelContext(ctx, call)),
        );
      },
    },
  };
}

/**
 * Checks `options` and makes its tools, once, when the session opens. A malformed channel (no
 * id, no sender, a tool without a name or `run`, two tools of one name) is the app's bug: it
 * throws a TypeError naming the field, and no session opens.
 *
 * Every field is read exactly once, into a frozen plain copy: the app's objects may have getters
 * or be proxies, and a value read twice could pass the check as one sender and be compared with
 * `ownerId` as another (making `isOwner` true for a sender who is not the owner).
 */
export function prepareChannel(options: ChannelOptions): PreparedChannel {
  if (typeof options !== 'object' || options === null) fail('channel', 'must be an object');
  const { id, sender, ownerId, tools: given } = options;
  if (!nonEmptyString(id)) fail('channel.id', 'must be a non-empty string');
  if (typeof sender !== 'object' || sender === null) fail('channel.sender.id', 'must be a non-empty string');
  if ('isOwner' in sender) {
    fail(
      'channel.sender.isOwner',
      'is not read: the sender is the owner when sender.id equals channel.ownerId; set channel.ownerId',
    );
  }
  const { id: senderId, name: senderName } = sender;
  if (!nonEmptyString(senderId)) fail('channel.sender.id', 'must be a non-empty string');
  if (ownerId !== undefined && !nonEmptyString(ownerId)) {
    fail('channel.ownerId', 'must be a non-empty string when given');
  }
  const call: ChannelCallContext = Object.freeze({
    channel: Object.freeze({ id }),
    sender: Object.freeze({
      id: senderId,
      ...(senderName === undefined ? {} : { name: String(senderName) }),
      isOwner: ownerId !== undefined && senderId === ownerId,
    }),
  });
  const tools = given ?? [];
  if (!Array.isArray(tools)) fail('channel.tools', 'must be an array');
  const overrides = options.overrides ?? [];
  if (!Array.isArray(overrides) || !overrides.every(nonEmptyString))
    fail('channel.overrides', 'must be an array of tool names');
  const seen = new Set<string>();
  const ownerOnly = new Set<string>();
  const registered = [...tools].map((tool, index) => {
    const made = channelTool(tool, index, id, call);
    const name = made.descriptor.name;
    if (seen.has(name)) fail(`channel.tools[${index}].name`, `"${name}" is given twice`);
    seen.add(name);
    if (tool.ownerOnly === true) ownerOnly.add(name);
    return made;
  });
  return { id, call, tools: registered, ownerOnly, overrides: [...overrides] };
}

/**
 * The channel's tools as one more source of the registry (core/register/registry.ts), merged last:
 * policy, the name rule and the built-ins' names (unless `channel.overrides` names one) apply to
 * them as to every tool. A name taken by a host tool: the channel tool wins and the host tool is
 * `overridden`, so a plugin or server that adds a tool of that name later can never catch calls
 * meant for the channel, which carry what the channel's user said. For a sender who is not the
 * owner, an owner-only tool is withheld (`owner-only`) and keeps its name for the same reason.
 */
export function channelContribution(channel: PreparedChannel): ToolSource {
  const owner = formatOwner({ kind: 'channel', channelId: channel.id });
  const withheld = new Map<string, ToolDiagnostic>();
  if (!channel.call.sender.isOwner) {
    for (const name of channel.ownerOnly) {
      withheld.set(name, {
        reason: 'owner-only',
        message: `"${name}" of ${owner} is for the channel's owner only, and sender "${channel.call.sender.id}" is not the owner`,
      });
    }
  }
  return {
    kind: 'channel',
    id: channel.id,
    tools: channel.tools,
    overrides: { key: 'channel.overrides', names: channel.overrides },
    ...(withheld.size === 0 ? {} : { withheld }),
  };
}

/**
 * The contributions `snapshot`'s Map was built from. A snapshot made by hand without them (a
 * test's) stands for them with its Map's tools, by source, and what it kept out.
 */
function contributionsOf(snapshot: ChannelHostSnapshot): readonly ToolSource[] {
  if (snapshot.sources !== undefined) return snapshot.sources;
  const bySource = new Map<string, RegisteredTool[]>();
  for (const tool of snapshot.registry.tools.values()) {
    const key = `${tool.source}\u0000${tool.sourceId}`;
    bySource.set(key, [...(bySource.get(key) ?? []), tool]);
  }
  const sources = [...bySource.values()].map(
    (tools): ToolSource => ({
      kind: tools[0]?.source ?? 'custom',
      id: tools[0]?.sourceId ?? 'custom',
      tools,
    }),
  );
  return [...sources, { kind: 'custom', id: 'excluded', tools: [], unavailable: snapshot.registry.excluded }];
}

/** What a channel session reads of its host's snapshot. */
interface ChannelHostSnapshot {
  readonly registry: Registry;
  readonly policy: ToolPolicy;
  readonly sources?: readonly ToolSource[];
}

/**
 * A channel session's view of its host: the host's snapshot with a Map of its own, built by the
 * one registry builder from the host's contributions and the channel's, made again only when the
 * host's snapshot changes (a rebuild, a hook added), and the
 * session's availability context with `channel` set to the channel id. Checks the channel when
 * called, so a malformed one throws before the session exists.
 */
export function channelSnapshots<S extends ChannelHostSnapshot>(
  hostSnapshot: () => S,
  options: { readonly channel?: ChannelOptions; readonly context?: Readonly<Record<string, unknown>> },
): { snapshot: () => S; context: Readonly<Record<string, unknown>> } | undefined {
  if (options.channel === undefined) return undefined;
  const channel = prepareChannel(options.channel);
  const contribution = channelContribution(channel);
  const given = options.context?.[CHANNEL_CONTEXT_KEY];
  if (given !== undefined && given !== channel.id) {
    fail(
      'context.channel',
      `${JSON.stringify(given)} disagrees with channel.id ${JSON.stringify(channel.id)}; a channel session's context.channel is its channel id (leave it out)`,
    );
  }
  let from: S | undefined;
  let view: S | undefined;
  const snapshot = (): S => {
    const current = hostSnapshot();
    if (current !== from || view === undefined) {
      const registry = buildRegistry([...contributionsOf(current), contribution], current.policy);
      view = { ...current, registry };
      from = current;
    }
    return view;
  };
  return { snapshot, context: { ...options.context, [CHANNEL_CONTEXT_KEY]: channel.id } };
}
