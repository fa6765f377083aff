import type { JsonSchema, ToolAnnotations, ToolDescriptor } from '@toolhost/plugin-sdk';

/** A tool as MCP `tools/list` describes it. */
export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
}

/** A descriptor as an entry of MCP `tools/list`. */
export function toMcpTool(descriptor: ToolDescriptor): McpTool {
  return {
    name: descriptor.name,
    ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema,
    ...(descriptor.outputSchema === undefined ? {} : { outputSchema: descriptor.outputSchema }),
    ...(descriptor.annotations === undefined ? {} : { annotations: descriptor.annotations }),
  };
}
