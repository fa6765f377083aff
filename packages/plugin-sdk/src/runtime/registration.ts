import { ErrorCtor, global, isArray, parse, StringCtor, stringify } from './intrinsics.js';
import {
  type DescribeReply,
  type PluginManifest,
  REGISTER_GLOBAL,
  type ToolManifest,
  type WireIssue,
} from './protocol.js';
import { cappedStringify, issuesOf, messageOf, readData, type SchemaLike, TOO_LARGE } from './values.js';

/** What the plugin bundle hands over: its definition and the SDK helpers bundled with it. */
interface Registration {
  readonly plugin: RegisteredPlugin;
  readonly toJsonSchema: (schema: unknown, io: 'input' | 'output') => unknown;
}

export interface RegisteredTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly input: SchemaLike;
  readonly output?: SchemaLike;
  readonly annotations?: unknown;
  readonly availability?: unknown;
  readonly sortKey?: string;
  readonly deferLoading?: unknown;
  readonly requireApproval?: unknown;
  readonly execute: (input: unknown, ctx: unknown) => unknown;
}

export interface RegisteredPlugin {
  readonly id: string;
  readonly version?: string;
  readonly description?: string;
  readonly config?: SchemaLike;
  readonly permissions?: unknown;
  readonly tools: readonly RegisteredTool[];
  readonly hooks?: {
    beforeToolCall?: (event: unknown, ctx: unknown) => unknown;
    afterToolCall?: (event: unknown, ctx: unknown) => unknown;
  };
}

let registration: Registration | undefined;

global[REGISTER_GLOBAL] = (plugin: RegisteredPlugin, toJsonSchema: Registration['toJsonSchema']) => {
  delete global[REGISTER_GLOBAL];
  registration = { plugin, toJsonSchema };
};

export function requirePlugin(): RegisteredPlugin {
  if (registration === undefined)
    throw new ErrorCtor('the plugin did not register (no default export of definePlugin?)');
  // The entry's default export as it came: an empty or half-saved index.ts exports nothing.
  const plugin = registration.plugin as unknown;
  if (typeof plugin !== 'object' || plugin === null) {
    throw new ErrorCtor(
      `the plugin's entry has no default export of definePlugin({ id, tools }) (it exports ${plugin === null ? 'null' : plugin === undefined ? 'nothing' : typeof plugin}); an empty or half-saved index.ts looks like this`,
    );
  }
  if (!isArray(readData(plugin, 'tools'))) {
    throw new ErrorCtor(
      "the plugin's entry exports no definePlugin({ id, tools: [...] }) as its default (an empty or half-saved index.ts looks like this)",
    );
  }
  return plugin as RegisteredPlugin;
}

export function parseConfig(
  plugin: RegisteredPlugin,
  raw: unknown,
): { ok: true; value: unknown } | { ok: false; issues: WireIssue[] } {
  if (plugin.config === undefined) return { ok: true, value: undefined };
  const parsed = plugin.config.safeParse(raw === null ? undefined : raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: issuesOf(parsed) };
}

/**
 * The largest manifest a plugin may declare, serialized: room for MAX_TOOLS_PER_PLUGIN tools with
 * descriptions of MAX_DESCRIPTION_CHARS and ordinary schemas.
 */
const MAX_MANIFEST_CHARS = 4_000_000;

export function describe(configJson: string): string {
  let reply: DescribeReply;
  try {
    const plugin = requirePlugin();
    const toJsonSchema = (registration as Registration).toJsonSchema;
    const tools: ToolManifest[] = plugin.tools.map((tool) => ({
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: tool.description,
      inputSchema: toJsonSchema(tool.input, 'input') as ToolManifest['inputSchema'],
      ...(tool.output === undefined
        ? {}
        : { outputSchema: toJsonSchema(tool.output, 'output') as ToolManifest['inputSchema'] }),
      ...(tool.annotations === undefined
        ? {}
        : { annotations: tool.annotations as ToolManifest['annotations'] }),
      ...(tool.availability === undefined
        ? {}
        : { availability: tool.availability as ToolManifest['availability'] }),
      ...(tool.sortKey === undefined ? {} : { sortKey: tool.sortKey }),
      // Plain data only: the host's manifest check refuses anything but a boolean.
      ...(tool.deferLoading === undefined ? {} : { deferLoading: tool.deferLoading as boolean }),
      ...(tool.requireApproval === undefined
        ? {}
        : { requireApproval: tool.requireApproval as ToolManifest['requireApproval'] }),
    }));
    const config = parseConfig(plugin, parse(configJson));
    const manifest: PluginManifest = {
      id: plugin.id,
      ...(plugin.version === undefined ? {} : { version: plugin.version }),
      ...(plugin.description === undefined ? {} : { description: plugin.description }),
      permissions: (plugin.permissions ?? {}) as PluginManifest['permissions'],
      tools,
      hooks: {
        before: typeof plugin.hooks?.beforeToolCall === 'function',
        after: typeof plugin.hooks?.afterToolCall === 'function',
      },
      ...(config.ok ? {} : { configIssues: config.issues }),
      // The expected shape, for messages that say what to write in plugins.<id>.config.
      ...(plugin.config === undefined ? {} : { configSchema: toJsonSchema(plugin.config, 'input') }),
    };
    reply = { ok: true, manifest };
  } catch (error) {
    let toolNames: string[] | undefined;
    try {
      toolNames = registration?.plugin.tools.map((t) => StringCtor(t.name));
    } catch {
      toolNames = undefined;
    }
    reply = { ok: false, error: messageOf(error), ...(toolNames === undefined ? {} : { toolNames }) };
  }
  try {
    return cappedStringify(reply, MAX_MANIFEST_CHARS);
  } catch (error) {
    const why =
      error === TOO_LARGE
        ? `it is over ${MAX_MANIFEST_CHARS} characters (its tools, descriptions and schemas together)`
        : messageOf(error);
    return stringify({ ok: false, error: `the plugin's manifest cannot be serialized: ${why}` });
  }
}
