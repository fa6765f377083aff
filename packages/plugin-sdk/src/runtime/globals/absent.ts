/**
 * Node globals that plugins do not have, and what to use instead. They are left undefined (not
 * throwing getters), so `typeof process`, esbuild's `__require` shim and libraries' feature checks
 * keep working; a `ReferenceError` naming one of them gets the hint where its message leaves the
 * isolate (a call's error, a load error).
 */
const INSTEAD: Readonly<Record<string, string>> = {
  process: 'use ctx.env.get(name) for granted environment variables and ctx.config for settings',
  require: 'use import; Node built-ins do not exist in plugins (ctx.fs, ctx.fetch, ctx.env instead)',
  module: 'use export default definePlugin(...)',
  exports: 'use export default definePlugin(...)',
  Buffer: 'use Uint8Array with TextEncoder/TextDecoder, and atob/btoa for base64',
  global: 'use globalThis',
  __dirname: 'plugins have no folder at run time; use ctx.fs with paths relative to the project root',
  __filename: 'plugins have no file at run time; use ctx.fs with paths relative to the project root',
  setImmediate: 'use setTimeout(fn, 0) or queueMicrotask(fn)',
  clearImmediate: 'use clearTimeout with setTimeout(fn, 0)',
  XMLHttpRequest: 'use fetch (or ctx.fetch)',
  WebSocket: 'plugins have no sockets; use fetch for HTTP requests',
  performance: 'use Date.now()',
  navigator: 'plugins run outside a browser',
  window: 'use globalThis',
  document: 'plugins run outside a browser',
};

const NOT_DEFINED = /^(?:ReferenceError: )?([A-Za-z_$][\w$]*) is not defined$/;

/** The message with a hint appended when it is "X is not defined" for a known Node/browser global. */
export function explainMissingGlobal(message: string): string {
  const match = NOT_DEFINED.exec(message);
  if (match === null) return message;
  const name = match[1] as string;
  if (!Object.hasOwn(INSTEAD, name)) return message;
  return `${message}: plugins run in a sandbox without Node globals; ${INSTEAD[name]}`;
}
