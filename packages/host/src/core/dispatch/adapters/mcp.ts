import type {
  JsonSchema,
  ToolAnnotations,
  ToolDescriptor,
  ToolExecutorRef,
  ToolIcon,
} from '@toolhost/plugin-sdk';

/** A tool as MCP `tools/list` describes it. */
export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly ToolIcon[];
  /** `toolhost/executor`: where calls land (`core`, `plugin`, `channel`, `mcp`); beside a bridged tool's own `_meta`. */
  readonly _meta?: { readonly [EXECUTOR_META_KEY]: ToolExecutorRef['kind']; readonly [key: string]: unknown };
}

/** The `_meta` key of `tools/list` entries naming the executor kind (a prefixed key, as MCP asks). */
export const EXECUTOR_META_KEY = 'toolhost/executor';

/** A descriptor as an entry of MCP `tools/list`. */
export function toMcpTool(descriptor: ToolDescriptor): McpTool {
  return {
    name: descriptor.name,
    ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema,
    ...(descriptor.outputSchema === undefined ? {} : { outputSchema: descriptor.outputSchema }),
    ...(descriptor.annotations === undefined ? {} : { annotations: descriptor.annotations }),
    ...(descriptor.icons === undefined ? {} : { icons: descriptor.icons }),
    ...(descriptor.executor === undefined
      ? {}
      : { _meta: { ...descriptor.meta, [EXECUTOR_META_KEY]: descriptor.executor.kind } }),
  };
}
