import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/** A process's memory, bytes: resident set, and the V8 heap in use (isolated-vm isolates are outside it). */
export interface ProcessMemory {
  readonly rss: number;
  readonly heapUsed: number;
}

/**
 * This process's {@link ProcessMemory} now. In the executor's jail there is no `/proc`, where
 * Node reads the resident set: there it is the peak resident set instead (the host, which sees
 * the jailed process, replaces it with the current one: {@link residentBytesOf}).
 */
export function processMemory(): ProcessMemory {
  try {
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heapUsed };
  } catch {
    return { rss: process.resourceUsage().maxRSS * 1024, heapUsed: getHeapStatistics().used_heap_size };
  }
}

/** The resident set of process `pid`, bytes, from `/proc` (Linux); undefined where it cannot be read. */
export function residentBytesOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}
