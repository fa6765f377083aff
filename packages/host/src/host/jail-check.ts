import type { JailSetting } from '../config/sandbox.js';
import { jailSupport } from '../jail/index.js';

/** Thrown by `createHost` when `sandbox.jail` is `required` and this machine cannot make the jail. */
export class JailUnavailableError extends Error {
  override readonly name = 'JailUnavailableError';
  readonly code = 'jail-unavailable';
}

/** Throws {@link JailUnavailableError} when `jail` is `required` and no jail can be made here, saying why. */
export function checkJail(jail: JailSetting): void {
  if (jail !== 'required') return;
  const support = jailSupport();
  if (support.available) return;
  throw new JailUnavailableError(
    `sandbox.jail is 'required', and ${support.reason}. Plugin code, exec and stdio MCP servers will not run unjailed: make the jail possible here, or set sandbox.jail to 'auto' (jail where possible) or 'off'.`,
  );
}
