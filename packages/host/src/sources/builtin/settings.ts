import type { ControlGuard } from '../../workspace/control.js';

/** What each file-system tool is built with. */
export interface WorkspaceSettings {
  /** The root as given, made absolute. */
  readonly root: string;
  readonly maxReadBytes: number;
  /** Refuses what the tools may not do to the host's control files. */
  readonly control: ControlGuard;
}

/** The `grep` tool's time limits, resolved. */
export interface GrepLimits {
  readonly searchBudgetMs: number;
  readonly fileBudgetMs: number;
}
