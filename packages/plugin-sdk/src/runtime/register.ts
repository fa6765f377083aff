import * as z from 'zod';
import { toJsonSchema } from '../define.js';
import { REGISTER_GLOBAL } from './protocol.js';

/**
 * Called by the plugin bundle's generated entry with the plugin's default export: hands the
 * definition to the runtime, with the schema converter of the one zod the isolate's prelude holds
 * for the plugin and the SDK alike (a second copy would not see what `.describe()` recorded).
 */
export function registerPlugin(plugin: unknown): void {
  const register = (globalThis as Record<string, unknown>)[REGISTER_GLOBAL];
  if (typeof register !== 'function') {
    throw new Error('registerPlugin must run inside a toolhost isolate, once');
  }
  register(plugin, (schema: unknown, io: 'input' | 'output') => {
    if (!(schema instanceof z.ZodType)) throw new TypeError('a tool schema is not a zod schema');
    return toJsonSchema(schema, io);
  });
}
