/**
 * The requests a supervised `serve` process has in flight, kept where its supervisor can read them
 * after the process died: a small file the supervisor makes and passes as the child's fd 4, in
 * fixed-size slots, one per request in flight. The child writes a request's slot (its JSON-RPC id,
 * and the plugin whose tool it calls) before handling it, and empties the slot once the response
 * is sent: one positional write each, which the kernel keeps whatever becomes of the process.
 *
 * This replaces a last word spoken by the dying process itself (isolated-vm's catastrophic-error
 * handler), which ruled out sync isolate entries: isolated-vm runs that handler on the main thread,
 * and an isolate entered synchronously from the main thread would wait for it forever. Now V8
 * aborts the process at once and the supervisor answers for it.
 *
 * Slot layout ({@link SLOT_SIZE} bytes): byte 0 the kind (0 empty, 1 a number id, 2 a string id);
 * bytes 2–3 the id's UTF-8 length (string ids); bytes 4–5 the plugin id's UTF-8 length (0: no
 * plugin tool); bytes 8–15 a number id (float64); from byte 16 the string id, then the plugin id.
 * A request whose ids do not fit in a slot, or that comes when {@link MAX_SLOTS} are in use, is not
 * recorded: if the process dies, that request gets no answer from the supervisor (the client waits
 * for its own timeout), and its plugin is not named.
 */

import { fstatSync, readSync, writeSync } from 'node:fs';
import type { SharedTempFile } from '../util/temp-file.js';
import type { RequestId } from './reports.js';

/** The serve process's file descriptor of the slots. */
export const IN_FLIGHT_FD = 4;
/** Bytes per slot: a number id or a string id of up to ~200 bytes, and a plugin id. */
export const SLOT_SIZE = 256;
/**
 * Slots the file may grow to (16 MiB); a new slot is used only when every earlier one is taken,
 * so the file is as large as the most requests ever in flight at once.
 */
export const MAX_SLOTS = 65_536;

const HEADER = 16;
const EMPTY = 0;
const NUMBER_ID = 1;
const STRING_ID = 2;

/**
 * Recorded in place of a plugin id for a `run_code` request: its script runs inline in the serve
 * process too, and it is not a plugin (no plugin id can start with `:`). A crash while one was in
 * flight is charged to no plugin.
 */
export const SCRIPT_IN_FLIGHT = ':run_code';

/** A request the process had in flight, read from the slots. */
export interface InFlightRequest {
  readonly id: RequestId;
  /** The plugin whose tool the request called; undefined for other requests and other tools. */
  readonly pluginId: string | undefined;
}

/** The serve process's side: records requests in flight, with no allocation but the slot map's. */
export class InFlightSlots {
  readonly #fd: number;
  /** One slot's bytes, reused for every write. */
  readonly #slot = Buffer.alloc(SLOT_SIZE);
  readonly #empty = Buffer.alloc(1);
  /** The slot of each request in flight. */
  readonly #slots = new Map<RequestId, number>();
  /** Emptied slots, reused before the file grows. */
  readonly #free: number[] = [];
  #used = 0;
  /** Set when a write failed (no such fd: not run by a supervisor): nothing is recorded any more. */
  #failed = false;

  constructor(fd = IN_FLIGHT_FD) {
    this.#fd = fd;
  }

  /** Records `id` as in flight, calling a tool of `pluginId` (if any); false when it could not be. */
  started(id: RequestId, pluginId: string | undefined): boolean {
    if (this.#failed) return false;
    if (this.#slots.has(id)) return true;
    const length = this.#fill(id, pluginId);
    if (length === undefined) return false;
    const index = this.#free.pop() ?? (this.#used < MAX_SLOTS ? this.#used++ : -1);
    if (index < 0) return false;
    if (!this.#write(length, index)) return false;
    this.#slots.set(id, index);
    return true;
  }

  /**
   * Names `pluginId` (or none) in the slot of `id`, which stays in flight: a call that waited its
   * turn (serve/direct-calls.ts) names no plugin until it runs. Nothing when `id` has no slot.
   */
  calling(id: RequestId, pluginId: string | undefined): void {
    const index = this.#slots.get(id);
    if (index === undefined || this.#failed) return;
    const length = this.#fill(id, pluginId);
    if (length !== undefined) this.#write(length, index);
  }

  /** The slot buffer filled for `id` and `pluginId`: its length, or undefined when it does not fit. */
  #fill(id: RequestId, pluginId: string | undefined): number | undefined {
    const slot = this.#slot;
    const pluginBytes = pluginId === undefined ? 0 : Buffer.byteLength(pluginId, 'utf8');
    let length: number;
    if (typeof id === 'number') {
      length = HEADER + pluginBytes;
      if (length > SLOT_SIZE) return undefined;
      slot[0] = NUMBER_ID;
      slot.writeUInt16LE(0, 2);
      slot.writeDoubleLE(id, 8);
    } else {
      const idBytes = Buffer.byteLength(id, 'utf8');
      length = HEADER + idBytes + pluginBytes;
      if (length > SLOT_SIZE) return undefined;
      slot[0] = STRING_ID;
      slot.writeUInt16LE(idBytes, 2);
      slot.write(id, HEADER, idBytes, 'utf8');
    }
    slot.writeUInt16LE(pluginBytes, 4);
    if (pluginId !== undefined) slot.write(pluginId, length - pluginBytes, pluginBytes, 'utf8');
    return length;
  }

  /** Writes the filled slot buffer at slot `index`; false (and nothing recorded any more) when it failed. */
  #write(length: number, index: number): boolean {
    try {
      writeSync(this.#fd, this.#slot, 0, length, index * SLOT_SIZE);
      return true;
    } catch {
      this.#failed = true;
      return false;
    }
  }

  /** Empties the slot of `id` (its response is sent); nothing when it had none. */
  answered(id: RequestId): void {
    const index = this.#slots.get(id);
    if (index === undefined) return;
    this.#slots.delete(id);
    try {
      writeSync(this.#fd, this.#empty, 0, 1, index * SLOT_SIZE);
      this.#free.push(index);
    } catch {
      // The slot stays taken: a later crash may answer this request twice, never leave one unanswered.
    }
  }
}

/**
 * The supervisor's side: the requests the process had in flight, in slot order (their order of
 * arrival, mostly), read from the file the supervisor made before spawning it and passed as its
 * fd 4 (a `SharedTempFile`, as the executor's started-mark is: the kernel keeps what a dead
 * process wrote there).
 */
export function readInFlight(file: SharedTempFile): InFlightRequest[] {
  if (file.closed) return [];
  const size = fstatSync(file.fd).size;
  const bytes = Buffer.alloc(size);
  let got = 0;
  while (got < size) {
    const n = readSync(file.fd, bytes, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  const requests: InFlightRequest[] = [];
  for (let at = 0; at + HEADER <= got; at += SLOT_SIZE) {
    const kind = bytes[at];
    if (kind === EMPTY) continue;
    const idBytes = kind === STRING_ID ? bytes.readUInt16LE(at + 2) : 0;
    const pluginBytes = bytes.readUInt16LE(at + 4);
    const end = at + HEADER + idBytes + pluginBytes;
    if ((kind !== NUMBER_ID && kind !== STRING_ID) || end > Math.min(got, at + SLOT_SIZE)) continue;
    const id =
      kind === NUMBER_ID
        ? bytes.readDoubleLE(at + 8)
        : bytes.toString('utf8', at + HEADER, at + HEADER + idBytes);
    const pluginId = pluginBytes === 0 ? undefined : bytes.toString('utf8', end - pluginBytes, end);
    requests.push({ id, pluginId });
  }
  return requests;
}
