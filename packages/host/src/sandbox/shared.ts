import { createSandbox } from './create.js';
import type { IsolateSettings, Sandbox } from './types.js';

/** How the host's sandbox is made: its mode (kept for its life) and when idle isolates go. */
export interface SandboxPlacement {
  readonly mode: 'process' | 'inline';
  readonly isolates: IsolateSettings;
}

/**
 * The host's one sandbox, made on first use (the first plugin refresh, or the first code-mode
 * script) in the mode the settings say then, and shared: plugins' isolates and scripts' isolates
 * live in the same place, the executor process in `process` mode (under one supervision and one
 * idle retirement), this process in `inline` mode.
 */
export class SharedSandbox {
  readonly #placement: () => SandboxPlacement;
  #sandbox: Sandbox | undefined;
  #closed = false;

  constructor(placement: () => SandboxPlacement) {
    this.#placement = placement;
  }

  /** The sandbox, if it was made. */
  get current(): Sandbox | undefined {
    return this.#sandbox;
  }

  /** The sandbox, made now if it was not (closed at once once the host is closing: it refuses work). */
  get(): Sandbox {
    if (this.#sandbox === undefined) {
      const { mode, isolates } = this.#placement();
      this.#sandbox = createSandbox(mode, isolates);
      if (this.#closed) void this.#sandbox.close();
    }
    return this.#sandbox;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#sandbox?.close();
  }
}
