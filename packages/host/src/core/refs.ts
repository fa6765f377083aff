import type { ToolDescriptor, ToolExecutorRef, ToolOwnerRef } from '@toolhost/plugin-sdk';

/** Renders an owner for people: `core`, `plugin:weather`, `mcp:github`. Never parsed back. */
export function formatOwner(owner: ToolOwnerRef): string {
  switch (owner.kind) {
    case 'core':
    case 'custom':
      return owner.kind;
    case 'plugin':
      return `plugin:${owner.pluginId}`;
    case 'channel':
      return `channel:${owner.channelId}`;
    case 'mcp':
      return `mcp:${owner.serverId}`;
  }
}

/** Renders an executor ref for people: `plugin:weather:weather_now`. Never parsed back. */
export function formatExecutor(ref: ToolExecutorRef): string {
  switch (ref.kind) {
    case 'core':
      return `core:${ref.executorId}`;
    case 'plugin':
      return `plugin:${ref.pluginId}:${ref.toolName}`;
    case 'channel':
      return `channel:${ref.channelId}:${ref.actionId}`;
    case 'mcp':
      return `mcp:${ref.serverId}:${ref.toolName}`;
  }
}

/**
 * The hidden stand-in for a source whose tools are not known (a plugin that did not load, an MCP
 * server that never connected): named as its owner renders (`plugin:weather`, `mcp:github`), with
 * an empty object input and no executor, so it can be listed with a reason but never called.
 */
export function placeholderDescriptor(owner: ToolOwnerRef, description: string): ToolDescriptor {
  return { name: formatOwner(owner), description, inputSchema: { type: 'object' }, owner };
}
