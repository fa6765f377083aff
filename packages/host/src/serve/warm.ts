import { warmInputChecks } from '../core/wrap/input-check.js';
import type { ToolHost } from '../host/host.js';
import { internalsOf } from '../host/internals.js';

/**
 * Starts the host's executor process when it begins serving MCP (`serveStdio`, `serveHttp`, so
 * `toolhost serve` and `dev` too) and has plugins, instead of at the first plugin call: its jail,
 * Node, and the prelude built and snapshotted took that call 0.56-0.60 s after a warm start, where
 * a call into a started executor takes 0.08-0.13 s (`toolhost serve`, a call 1.5 s after
 * `tools/list`; 2-core machine). A start that built plugins has started it already
 * (plugin-set.ts); an executor no call reaches retires when idle, as any other; an inline sandbox
 * has nothing to start.
 */
export function warmForServing(host: ToolHost): void {
  if (!host.plugins.some((plugin) => plugin.status === 'loaded' || plugin.status === 'loading')) return;
  internalsOf(host).sandbox?.warm?.();
  // Plugin tools' input is checked on the host against their JSON Schema: the compiler loads after
  // this turn (the executor's spawn goes first), not on the session's first plugin call.
  // It cannot throw: a compiler that fails to load makes an unusable check, as on a call.
  setImmediate(warmInputChecks).unref();
}
