import * as z from 'zod';
import type {
  ContentBlock,
  JsonSchema,
  ToolContext,
  ToolDescriptor,
  ToolExecutorRef,
  ToolOwnerRef,
  ToolPresentation,
} from './types.js';

/** The input of every tool is a JSON object, so its schema is a zod object. */
export type ToolInputSchema = z.ZodObject;

/** The structured output an executor may return: the output schema's input side, if there is one. */
export type StructuredOutput<O extends z.ZodType | undefined> = O extends z.ZodType
  ? z.input<O>
  : Readonly<Record<string, unknown>>;

/**
 * What `execute` may return: a string (one text block), an array of content blocks, or a result
 * object. With an `output` schema, `structuredContent` is checked against it; when `content` is
 * omitted, the host fills it with the structured output as JSON text.
 */
export type ToolReturn<O extends z.ZodType | undefined = undefined> =
  | string
  | readonly ContentBlock[]
  | {
      readonly content?: readonly ContentBlock[];
      readonly structuredContent?: StructuredOutput<O>;
      readonly isError?: boolean;
    };

/**
 * A tool as its author writes it: schemas and code, and what the descriptor shows of it
 * ({@link ToolPresentation}). `defineTool` checks and returns it.
 */
export interface ToolDefinition<
  I extends ToolInputSchema = ToolInputSchema,
  O extends z.ZodType | undefined = z.ZodType | undefined,
  Config = unknown,
> extends ToolPresentation {
  /** Unique name the model calls: letters, digits, `_` and `-`, at most 64 characters. */
  readonly name: string;
  /** What the tool does, written for the model. */
  readonly description: string;
  /** Zod object schema of the input; `execute` receives its parsed output. */
  readonly input: I;
  /** Zod schema of `structuredContent`, when the tool returns structured output. */
  readonly output?: O;
  /** Does the work. Throwing yields an `is_error` result with the error's message. */
  readonly execute: (input: z.output<I>, ctx: ToolContext<Config>) => ToolReturn<O> | Promise<ToolReturn<O>>;
}

/** The name rule shared by Anthropic, OpenAI and MCP clients. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The most tools one plugin may declare; a plugin with more does not load (split it). */
export const MAX_TOOLS_PER_PLUGIN = 256;

/** The longest description of a tool or a plugin, in characters (`string.length`). */
export const MAX_DESCRIPTION_CHARS = 10_000;

/** The error text for a description over {@link MAX_DESCRIPTION_CHARS}; the host uses it too. */
export function descriptionTooLong(subject: string, length: number): string {
  return `${subject} has a description of ${length} characters; the limit is ${MAX_DESCRIPTION_CHARS} (MAX_DESCRIPTION_CHARS): shorten it`;
}

/** The error text for more tools than {@link MAX_TOOLS_PER_PLUGIN}; the host uses it too. */
export function tooManyTools(subject: string, count: number): string {
  return `${subject} declares ${count} tools; a plugin may declare at most ${MAX_TOOLS_PER_PLUGIN} (MAX_TOOLS_PER_PLUGIN): split it into several plugins`;
}

/** Declares a tool. The input type of `execute` is inferred from the `input` schema. */
export function defineTool<
  I extends ToolInputSchema,
  O extends z.ZodType | undefined = undefined,
  Config = unknown,
>(definition: ToolDefinition<I, O, Config>): ToolDefinition<I, O, Config> {
  if (!TOOL_NAME_PATTERN.test(definition.name)) {
    throw new TypeError(
      `Invalid tool name ${JSON.stringify(definition.name)}: use 1-64 letters, digits, "_" or "-"`,
    );
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw new TypeError(`Tool "${definition.name}" needs a non-empty description`);
  }
  if (definition.description.length > MAX_DESCRIPTION_CHARS) {
    throw new TypeError(descriptionTooLong(`Tool "${definition.name}"`, definition.description.length));
  }
  if (!(definition.input instanceof z.ZodObject)) {
    throw new TypeError(`Tool "${definition.name}": input must be a zod object schema (z.object({...}))`);
  }
  if (typeof definition.execute !== 'function') {
    throw new TypeError(`Tool "${definition.name}": execute must be a function`);
  }
  return definition;
}

/**
 * The key under which a schema node carries its author's messages, by the JSON Schema keyword
 * they are for (`type`, `minLength`, `pattern`…): the host checks input against the JSON Schema
 * alone, and refuses it in these words where the tool's zod schema gave its own.
 */
export const SCHEMA_MESSAGES_KEY = 'x-toolhost-messages';

/** Longest message kept: a message is for one field, not a document. */
const MAX_MESSAGE_CHARS = 500;

/** Which JSON Schema keywords a zod check's custom message stands for. */
const CHECK_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  min_length: ['minLength', 'minItems'],
  max_length: ['maxLength', 'maxItems'],
  length_equals: ['minLength', 'maxLength', 'minItems', 'maxItems'],
  greater_than: ['minimum', 'exclusiveMinimum'],
  less_than: ['maximum', 'exclusiveMaximum'],
  multiple_of: ['multipleOf'],
  number_format: ['integer'],
  'string_format:regex': ['pattern'],
};

/** A zod error setting as a plain message, when it is one (a function that answers a string). */
function messageText(error: unknown): string | undefined {
  if (typeof error !== 'function') return undefined;
  try {
    const out: unknown = error({ code: 'custom', input: undefined, path: [] });
    const text = typeof out === 'string' ? out : (out as { message?: unknown } | undefined)?.message;
    return typeof text === 'string' && text !== '' ? text.slice(0, MAX_MESSAGE_CHARS) : undefined;
  } catch {
    return undefined;
  }
}

interface ZodDefLike {
  readonly error?: unknown;
  readonly checks?: readonly {
    readonly _zod: { readonly def: { check: string; format?: string; error?: unknown } };
  }[];
}

/** The author's messages of one zod schema node, by JSON Schema keyword. */
function messagesOf(def: ZodDefLike): Record<string, string> {
  const messages: Record<string, string> = {};
  const own = messageText(def.error);
  if (own !== undefined) messages.type = own;
  for (const check of def.checks ?? []) {
    const { check: name, format, error } = check._zod.def;
    const text = messageText(error);
    const keywords = CHECK_KEYWORDS[format === 'regex' ? `${name}:regex` : name];
    if (text === undefined || keywords === undefined) continue;
    for (const keyword of keywords) messages[keyword] = text;
  }
  return messages;
}

/** Converts a zod schema to JSON Schema 2020-12, describing what a caller may send. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      if (io !== 'input') return;
      const messages = messagesOf(ctx.zodSchema._zod.def as ZodDefLike);
      if (Object.keys(messages).length > 0) {
        (ctx.jsonSchema as Record<string, unknown>)[SCHEMA_MESSAGES_KEY] = messages;
      }
    },
  }) as JsonSchema;
}

/** The plain-data descriptor of a definition, with its owner and executor. */
export function describeTool(
  definition: ToolDefinition,
  refs: { owner: ToolOwnerRef; executor: ToolExecutorRef },
): ToolDescriptor {
  return {
    name: definition.name,
    ...(definition.title === undefined ? {} : { title: definition.title }),
    description: definition.description,
    inputSchema: toJsonSchema(definition.input, 'input'),
    ...(definition.output === undefined ? {} : { outputSchema: toJsonSchema(definition.output, 'output') }),
    owner: refs.owner,
    executor: refs.executor,
    ...(definition.availability === undefined ? {} : { availability: definition.availability }),
    ...(definition.annotations === undefined ? {} : { annotations: definition.annotations }),
    ...(definition.sortKey === undefined ? {} : { sortKey: definition.sortKey }),
    ...(definition.deferLoading === undefined ? {} : { deferLoading: definition.deferLoading }),
    ...(definition.requireApproval === undefined ? {} : { requireApproval: definition.requireApproval }),
  };
}
