import type { ToolhostConfig } from './schema.js';

/**
 * The config in force when code gives config keys to `createHost` and a config file exists too:
 * the code's config laid over the file's, key by key, down to the leaves.
 *
 * - Objects whose shape the schema knows merge key by key, and so do records keyed by plugin id,
 *   server name or signal name: code that sets `plugins.weather.grants.net` leaves the file's
 *   `plugins.weather.config` and every other plugin as they are.
 * - A value of the code replaces the file's when it is a scalar or an array (`tools.allow`,
 *   `grants.net`), or one whose shape the host does not own or that has several object shapes: a
 *   plugin's `config` (its own schema decides), an MCP server entry (a `command` and a `url` do not
 *   mix), a `signals.config` / `signals.context` value.
 * - `tools.deny` adds up: a tool denied in either place is denied (an embedding cannot lift the
 *   operator's deny by accident, nor the file the code's).
 * - `tools.approve` adds up the same way: an approval the file asks for stays asked for.
 * - `sandbox` in its string form is its `mode`: `"inline"` in code over `{ "jail": "required" }`
 *   in the file is `{ "mode": "inline", "jail": "required" }`.
 *
 * So the same config given in code and in the file gives that config, and either one alone gives
 * itself. Both inputs are validated configs; so is the result. Keys are copied as own data
 * properties (a JSON `"__proto__"` key stays a key, never a prototype).
 */
export function layerConfig(file: ToolhostConfig, code: ToolhostConfig): ToolhostConfig {
  return layer(file, code, []) as ToolhostConfig;
}

/** Paths (with `*` for any key) whose values are replaced whole rather than merged. */
const REPLACED_WHOLE: readonly (readonly string[])[] = [
  ['plugins', '*', 'config'],
  ['mcpServers', '*'],
  ['signals', 'config', '*'],
  ['signals', 'context', '*'],
];

function replacedWhole(path: readonly string[]): boolean {
  return REPLACED_WHOLE.some(
    (pattern) => pattern.length === path.length && pattern.every((key, i) => key === '*' || key === path[i]),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function layer(below: unknown, above: unknown, path: readonly string[]): unknown {
  if (above === undefined) return below;
  if (below === undefined) return above;
  // `sandbox: "inline"` is `{ mode: "inline" }`: a mode given in code keeps the file's `jail`.
  if (path.length === 1 && path[0] === 'sandbox' && isPlainObject(below) !== isPlainObject(above)) {
    const asObject = (value: unknown) => (typeof value === 'string' ? { mode: value } : value);
    return layer(asObject(below), asObject(above), path);
  }
  if (path.length === 2 && path[0] === 'tools' && path[1] === 'deny') {
    return [...new Set([...(below as string[]), ...(above as string[])])];
  }
  if (path.length === 2 && path[0] === 'tools' && path[1] === 'approve') {
    return [...(below as unknown[]), ...(above as unknown[])];
  }
  if (!isPlainObject(below) || !isPlainObject(above) || replacedWhole(path)) return above;
  const keys = new Set([...Object.keys(below), ...Object.keys(above)]);
  // Object.fromEntries defines own properties: a "__proto__" key stays data.
  return Object.fromEntries(
    [...keys].map((key) => [key, layer(own(below, key), own(above, key), [...path, key])]),
  );
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
