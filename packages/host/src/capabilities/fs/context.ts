import type { Beneath } from '../../workspace/beneath.js';
import type { CapabilityLimits } from '../types.js';
import type { Locator } from './locate.js';

/** What every `ctx.fs` operation gets: its plugin's limits, the locator, and this call's walk. */
export interface FsOperation {
  readonly limits: CapabilityLimits;
  readonly locator: Locator;
  /** The walk beneath the project root; every folder it holds is closed when the operation ends. */
  readonly walk: Beneath;
}
