/** How much one plugin build may consume, so no plugin can make the host bundle the disk or hang. */
export interface BuildLimits {
  /**
   * Files the build may ask to read, refused ones included (the SDK and zod alone are ≈ 110):
   * also bounds how many files a glob over a large folder can make the build look at.
   */
  readonly maxFiles: number;
  /** Bytes read, over all files (the SDK and zod are ≈ 0.9 MB). */
  readonly maxBytes: number;
  /** Wall-clock time of one build, ms, from the request to its bundle. */
  readonly timeoutMs: number;
}

export const DEFAULT_BUILD_LIMITS: BuildLimits = {
  maxFiles: 2_000,
  maxBytes: 32 * 1024 * 1024,
  timeoutMs: 30_000,
};

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** "a plugin build may read 2000 files and 32 MB, in 30 s": the end of every limit message. */
function allowance(limits: BuildLimits): string {
  return `a plugin build may read ${limits.maxFiles} files and ${megabytes(limits.maxBytes)}, in ${limits.timeoutMs / 1000} s`;
}

/** Why a build that ran out of time failed. */
export function timeLimitMessage(limits: BuildLimits): string {
  return `the build took longer than ${limits.timeoutMs / 1000} s (${allowance(limits)})`;
}

/**
 * What one build has read. The first limit crossed stops the build: every later read is refused
 * at once with the same message.
 */
export class BuildBudget {
  readonly limits: BuildLimits;
  #files = 0;
  #bytes = 0;
  #reason: string | undefined;

  constructor(limits: BuildLimits) {
    this.limits = limits;
  }

  /** Why the build was stopped, if it was. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Bytes the next file may have. */
  get remainingBytes(): number {
    return this.limits.maxBytes - this.#bytes;
  }

  #stop(reason: string): string {
    this.#reason ??= reason;
    return this.#reason;
  }

  /** Counts one more file; the reason the build stops when that is one too many. */
  takeFile(): string | undefined {
    if (this.#reason !== undefined) return this.#reason;
    this.#files += 1;
    if (this.#files <= this.limits.maxFiles) return undefined;
    return this.#stop(`the build reads more than ${this.limits.maxFiles} files (${allowance(this.limits)})`);
  }

  /** Counts the bytes of a file read; the reason the build stops when they are too many. */
  takeBytes(count: number): string | undefined {
    if (this.#reason !== undefined) return this.#reason;
    this.#bytes += count;
    return this.#bytes <= this.limits.maxBytes ? undefined : this.overBytes();
  }

  /** Stops the build for a file larger than {@link remainingBytes}. */
  overBytes(): string {
    return this.#stop(
      `the build reads more than ${megabytes(this.limits.maxBytes)} (${allowance(this.limits)})`,
    );
  }
}
