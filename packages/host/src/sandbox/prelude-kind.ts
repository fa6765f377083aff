/**
 * Which prelude a plugin bundle needs, decided without building anything: the executor process
 * (which has no bundler in its jail) and the host both use it.
 */

/**
 * zod's mini API: its own classes beside the classic ones, on the same core. Evaluating it costs
 * every isolate about 0.55 MB of heap (1.3 MB RSS) and 4 ms, so only the isolates of plugins that
 * import it get the prelude that holds it.
 */
export const MINI_MODULES: ReadonlySet<string> = new Set(['zod/mini', 'zod/v4-mini', 'zod/v4/mini']);

/**
 * The global through which the prelude hands its module table to the plugin bundle. The bundle's
 * first statement takes it and deletes it, before any plugin code runs: plugin code never sees a
 * table (nor a `require`), only the bindings its own static imports name.
 */
export const SHARED_GLOBAL = '__toolhost_shared';

/** Which prelude an isolate needs: `full` holds zod's mini API too. */
export type PreludeKind = 'base' | 'full';

/**
 * The prelude a bundle needs. A bundle binds each shared export by the module's quoted name
 * (shared-modules.ts), so one that uses zod's mini API names it; a plugin that names it in a
 * string of its own only gets the larger prelude.
 */
export function preludeKindOf(bundle: string): PreludeKind {
  for (const name of MINI_MODULES) if (bundle.includes(JSON.stringify(name))) return 'full';
  return 'base';
}
