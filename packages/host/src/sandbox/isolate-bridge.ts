import { randomBytes } from 'node:crypto';
import { ATTACH_GLOBAL, BRIDGE_CALLBACKS, type RuntimeBridge } from '@toolhost/plugin-sdk/protocol';
import ivm from 'isolated-vm';
import type { Prelude } from './prelude.js';
import type { IsolateHandlers } from './types.js';

/** The limits of the isolate-side `timeout` while loading (bundle evaluation). */
export const LOAD_TIMEOUT_MS = 5_000;

export type EntryRef = ivm.Reference<(...args: unknown[]) => unknown>;
/** The runtime's entry points into the isolate. */
export interface Entry {
  readonly begin: EntryRef;
  readonly describe: EntryRef;
  readonly settle: EntryRef;
  readonly abort: EntryRef;
}

/**
 * Bytes of host randomness per `entropy` batch (256 UUIDs' worth). Large, so that a plugin
 * looping on `crypto.getRandomValues` spends its time decoding inside the isolate, where its CPU
 * limit counts, rather than in host callbacks, where it does not.
 */
const ENTROPY_BATCH = 4096;

/**
 * The runtime's source of randomness (`crypto.getRandomValues`, `randomUUID`): fresh bytes from
 * the OS CSPRNG per batch, never a seed the isolate could replay, and drawn separately by every
 * isolate, so no plugin sees another's bytes.
 */
function entropyCallback(): ivm.Callback {
  return new ivm.Callback(() => randomBytes(ENTROPY_BATCH).toString('base64'));
}

/** Where the bridge hands what the isolate sends back: capability replies and call replies. */
export interface BridgeOwner {
  settle(requestId: number, replyJson: string, callId: string): void;
  replied(callId: string, replyJson: string): void;
}

/** The host functions a plugin's isolate gets (the runtime's bridge), and nothing else. */
export function bridgeOf(
  handlers: IsolateHandlers,
  owner: BridgeOwner,
): Record<keyof RuntimeBridge, ivm.Callback> {
  // Only these callbacks enter the isolate: functions of strings and numbers, nothing else.
  // They never throw into the isolate: a host error (and its stack) must not reach plugin code.
  const guarded =
    (fn: (...args: unknown[]) => void) =>
    (...args: unknown[]): undefined => {
      try {
        fn(...args);
      } catch {
        // A host-side fault stays on the host side.
      }
      return undefined;
    };
  return {
    log: new ivm.Callback(
      guarded((callId, level, message, data) =>
        handlers.log(String(callId), String(level), String(message), String(data)),
      ),
    ),
    progress: new ivm.Callback(
      guarded((callId, done, total, message) =>
        handlers.progress(String(callId), Number(done), Number(total), String(message)),
      ),
    ),
    request: new ivm.Callback(
      guarded((callId, requestId, capability, args) => {
        const id = Number(requestId);
        const call = String(callId);
        handlers
          .request(call, String(capability), String(args))
          .catch(() => JSON.stringify({ ok: false, error: 'the capability failed on the host' }))
          .then((reply) => owner.settle(id, reply, call));
      }),
    ),
    reply: new ivm.Callback(guarded((callId, replyJson) => owner.replied(String(callId), String(replyJson)))),
    entropy: entropyCallback(),
  };
}

/**
 * Readies a fresh context for plugin code: the runtime (from the snapshot, or evaluated here),
 * attached to `bridge` through its one-shot entry; answers with the runtime's entry points.
 */
export async function attachRuntime(
  isolate: ivm.Isolate,
  context: ivm.Context,
  prelude: Prelude,
  bridge: Record<keyof RuntimeBridge, ivm.Callback>,
): Promise<Entry> {
  if (prelude.snapshot === undefined) {
    // No snapshot (V8 could not make one): the runtime, the SDK and zod are evaluated here,
    // compiled from the process's code cache (prelude.ts).
    const runtime = await isolate.compileScript(prelude.code, {
      filename: prelude.filename,
      ...(prelude.cachedData === undefined ? {} : { cachedData: prelude.cachedData }),
    });
    await runtime.run(context, { timeout: LOAD_TIMEOUT_MS });
    runtime.release();
  }
  // The one-shot attach entry: it takes the bridge, deletes itself and WebAssembly (which V8
  // put into this context, from a snapshot or not), and answers with the runtime's entry.
  const attach = (await context.global.get(ATTACH_GLOBAL, { reference: true })) as ivm.Reference<
    (...callbacks: ivm.Callback[]) => unknown
  >;
  const entry = (await attach.apply(
    undefined,
    BRIDGE_CALLBACKS.map((name) => bridge[name]),
    { result: { reference: true }, timeout: LOAD_TIMEOUT_MS },
  )) as ivm.Reference<Record<string, unknown>>;
  attach.release();
  const pick = (name: string) => entry.get(name, { reference: true }) as Promise<EntryRef>;
  const picked: Entry = {
    begin: await pick('begin'),
    describe: await pick('describe'),
    settle: await pick('settle'),
    abort: await pick('abort'),
  };
  entry.release();
  return picked;
}
