import type { BundleOutcome } from './build-context.js';
import type { BuildLimits } from './build-limits.js';
import type { SharedExports } from './shared-modules.js';

/** One plugin build as the build worker receives it. */
export interface BuildJob {
  readonly entry: string;
  /** The plugin's folder: the build reads nothing of the plugin outside it. */
  readonly root: string;
  readonly limits: BuildLimits;
  /** A one-shot build: its context is disposed once built. Otherwise it is kept for rebuilds. */
  readonly once: boolean;
}

/**
 * Messages from the host to the build worker. `key` names one plugin's build context (kept across
 * rebuilds); `id` pairs a build with its reply.
 */
export type ToBuildWorker =
  | ({ readonly t: 'build'; readonly id: number; readonly key: number } & BuildJob)
  | { readonly t: 'dispose'; readonly key: number };

/** Messages from the build worker to the host. */
export type FromBuildWorker = { readonly t: 'built'; readonly id: number; readonly outcome: BundleOutcome };

/** What the build worker is started with: the shared modules' export names, when the host has them. */
export interface BuildWorkerData {
  readonly sharedExports?: SharedExports;
}
