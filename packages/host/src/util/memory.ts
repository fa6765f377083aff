/** A process's memory, bytes: resident set, and the V8 heap in use (isolated-vm isolates are outside it). */
export interface ProcessMemory {
  readonly rss: number;
  readonly heapUsed: number;
}

/** This process's {@link ProcessMemory} now. */
export function processMemory(): ProcessMemory {
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}
