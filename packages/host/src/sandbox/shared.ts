import type { JailSetting, SandboxMode } from '../config/sandbox.js';
import type { Walls } from '../jail/index.js';
import { createSandbox } from './create.js';
import type { IsolateSettings, Sandbox } from './types.js';
import { wallsOfPlacement } from './walls.js';

/** How the host's sandbox is made: its mode and jail (kept for its life) and when idle isolates go. */
export interface SandboxPlacement {
  readonly mode: SandboxMode;
  readonly jail: JailSetting;
  readonly isolates: IsolateSettings;
  /** `sandbox.pollMicros` (process mode), kept for its life. */
  readonly pollMicros: number;
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

  /** The walls around plugin code: the made sandbox's, else those the settings would give now. */
  get walls(): Walls {
    return this.#sandbox?.walls ?? wallsOfPlacement(this.#placement());
  }

  /** The sandbox, if it was made. */
  get current(): Sandbox | undefined {
    return this.#sandbox;
  }

  /** The sandbox, made now if it was not (closed at once once the host is closing: it refuses work). */
  get(): Sandbox {
    if (this.#sandbox === undefined) {
      const { mode, jail, isolates, pollMicros } = this.#placement();
      this.#sandbox = createSandbox(mode, isolates, jail, pollMicros);
      if (this.#closed) void this.#sandbox.close();
    }
    return this.#sandbox;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#sandbox?.close();
  }
}
