/**
 * Reading the trail back (`toolhost audit`): every file of the folder, rotated ones too, one
 * record per line, merged in time order; a line that is not a record (cut short by a crash) is
 * skipped and counted. Following reads what each file gained since the last look.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** A record as read back; the fields trail.ts writes. */
export interface AuditRecord {
  readonly v: number;
  readonly time: string;
  readonly type: 'call' | 'approval';
  readonly principal?: string;
  readonly tool: string;
  readonly status?: string;
  readonly [key: string]: unknown;
}

/** Which records to show. */
export interface AuditFilter {
  readonly principal?: string;
  readonly tool?: string;
  readonly status?: string;
  readonly type?: 'call' | 'approval';
  /** ISO time: only records at or after it. */
  readonly since?: string;
}

export function matches(record: AuditRecord, filter: AuditFilter): boolean {
  if (filter.principal !== undefined && record.principal !== filter.principal) return false;
  if (filter.tool !== undefined && record.tool !== filter.tool) return false;
  if (filter.status !== undefined && record.status !== filter.status) return false;
  if (filter.type !== undefined && record.type !== filter.type) return false;
  if (filter.since !== undefined && record.time < filter.since) return false;
  return true;
}

function parse(line: string): AuditRecord | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as AuditRecord;
    return typeof value === 'object' && value !== null && typeof value.time === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The trail files of `dir`, oldest rotation first. */
export async function trailFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const rank = (name: string) => Number(/\.(\d+)\.jsonl$/.exec(name)?.[1] ?? 0);
  return names
    .filter((name) => name.endsWith('.jsonl'))
    .sort((a, b) => rank(b) - rank(a) || a.localeCompare(b))
    .map((name) => path.join(dir, name));
}

/** Every record of `dir`, in time order, and how many lines were not records. */
export async function readTrail(dir: string): Promise<{ records: AuditRecord[]; skipped: number }> {
  const records: AuditRecord[] = [];
  let skipped = 0;
  for (const file of await trailFiles(dir)) {
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const record = parse(line);
      if (record === undefined) skipped += 1;
      else records.push(record);
    }
  }
  // Stable: records of one file keep their order when their times are equal.
  records.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  return { records, skipped };
}

/** Reads what the live trail files (not the rotated ones) gained since the last call. */
export class TrailTail {
  readonly #dir: string;
  readonly #offsets = new Map<string, number>();
  readonly #partial = new Map<string, string>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Starts at the files' current ends. */
  async skipToEnd(): Promise<void> {
    for (const file of await this.#live()) {
      this.#offsets.set(file, (await fs.stat(file).catch(() => ({ size: 0 }))).size);
    }
  }

  async #live(): Promise<string[]> {
    return (await trailFiles(this.#dir)).filter((file) => !/\.\d+\.jsonl$/.test(file));
  }

  /** Records appended since the last look, in file order. */
  async read(): Promise<AuditRecord[]> {
    const found: AuditRecord[] = [];
    for (const file of await this.#live()) {
      const size = (await fs.stat(file).catch(() => ({ size: 0 }))).size;
      let from = this.#offsets.get(file) ?? 0;
      // Rotated meanwhile: the file is new.
      if (size < from) from = 0;
      if (size === from) continue;
      const handle = await fs.open(file, 'r');
      try {
        const buffer = Buffer.alloc(size - from);
        await handle.read(buffer, 0, buffer.length, from);
        const text = (this.#partial.get(file) ?? '') + buffer.toString('utf8');
        const lines = text.split('\n');
        this.#partial.set(file, lines.pop() ?? '');
        for (const line of lines) {
          const record = parse(line);
          if (record !== undefined) found.push(record);
        }
      } finally {
        await handle.close();
      }
      this.#offsets.set(file, size);
    }
    return found;
  }
}
