import { ATTACH_GLOBAL, BRIDGE_CALLBACKS, TEXT_REPLY_MARK } from '@toolhost/plugin-sdk/protocol';
import { callRequestJson, callRequests } from './call-request.js';
import { SHARED_GLOBAL } from './prelude-kind.js';

/**
 * What V8 runs once while it snapshots the prelude (isolated-vm's `warmupScript`), so that the
 * snapshot carries the bytecode of the functions every plugin's start and first call need. V8
 * compiles a function the first time it runs; without this, every isolate compiled zod's schema
 * builders, its JSON Schema writer and the runtime's describe and call paths again.
 *
 * Measured (`node --no-node-snapshot bench/isolate-prelude.mjs snapshot|unwarmed 100`, 3 pairs,
 * a 3-tool plugin): describe 0.97-1.04 ms against 2.41-2.57, its first call 0.66-0.70 ms against
 * 1.71-1.79, making and loading the isolate 9.5-10.1 ms against 10.7-11.1; `new ivm.Isolate`
 * (this thread) 3.4-3.6 ms against 3.1-3.2, RSS per live isolate 4.65-4.66 MB against 4.61.
 * It warms what most plugins use, not every schema kind: a warm-up that also ran unions,
 * records, defaults, structured output, content blocks and a refused input cost 0.17 MB per
 * isolate for a speed-up no greater on this plugin.
 *
 * It runs in a second context of the snapshotting isolate, which V8 then throws away: only what
 * contexts share (the compiled bytecode of functions; V8 clears their feedback before it
 * serializes) reaches the snapshot, never an object of that context. So its plugin, its
 * registration and its no-op bridge are nowhere in an isolate made from the snapshot
 * (prelude-warmup.test.ts pins that). Every value it uses is a literal of this file.
 *
 * It checks what it ran: a describe or a call that did not answer as a working plugin's does
 * throws, the snapshot is taken without it, and the host says so (prelude.ts). What it may do is
 * what the prelude's top level may do, and no more: stay synchronous (a promise's failure would
 * never reach the check), and leave no FinalizationRegistry, WeakRef or pending Intl work behind
 * (V8 aborts the process, not the snapshot, on those). Written as plain script text, not a
 * stringified function, so no build step or coverage tool can change it; the call's request is
 * made by the host's own `callRequestJson`, so it cannot drift from what the host sends.
 */

/** The warm-up call's request, as the host writes one (call-request.ts). */
const WARMUP_REQUEST = callRequestJson(
  callRequests({
    config: null,
    env: {},
    envGranted: [],
    maxReplyChars: 100_000,
    logs: {
      linesPerCall: 100,
      bytesPerCall: 100_000,
      lineBytes: 10_000,
      linesPerMinute: 1_000,
      bytesPerMinute: 1_000_000,
    },
  })('warm_text')({
    callId: 'warm',
    toolUseId: 'warm',
    sessionId: 'warm',
    input: { text: 'ab', times: 2, loud: false, mode: 'a', tags: ['x'] },
  }),
);

/** The bridge the warm-up attaches: no-ops, and (never called) an entropy source of zeros. */
const WARMUP_BRIDGE = BRIDGE_CALLBACKS.map((name) =>
  name === 'entropy' ? "() => 'AAAAAAAAAAAAAAAAAAAAAA=='" : 'noop',
).join(', ');

export const PRELUDE_WARMUP = `(() => {
  'use strict';
  const g = globalThis;
  const noop = () => undefined;
  const entry = g[${JSON.stringify(ATTACH_GLOBAL)}](${WARMUP_BRIDGE});
  const table = g[${JSON.stringify(SHARED_GLOBAL)}];
  delete g[${JSON.stringify(SHARED_GLOBAL)}];
  const z = table.zod;
  const { definePlugin, defineTool } = table['@toolhost/plugin-sdk'];
  const input = z.object({
    text: z.string().min(1).describe('some text'),
    times: z.number().int().positive().optional(),
    loud: z.boolean().optional(),
    mode: z.enum(['a', 'b']).optional(),
    tags: z.array(z.string()).max(4).optional(),
  });
  table['@toolhost/plugin-sdk/register'].registerPlugin(
    definePlugin({
      id: 'warmup',
      description: 'warms the prelude',
      config: z.object({ level: z.number().optional() }).optional(),
      tools: [
        defineTool({
          name: 'warm_text',
          description: 'text',
          input,
          annotations: { readOnlyHint: true },
          execute: ({ text, times }, ctx) => {
            ctx.log.info('called', { times });
            return text.repeat(times ?? 1);
          },
        }),
      ],
    }),
  );
  const described = JSON.parse(entry.describe('null'));
  if (described.ok !== true) throw new Error('describe: ' + described.error);
  const reply = entry.begin('call', ${JSON.stringify(WARMUP_REQUEST)});
  if (reply !== ${JSON.stringify(TEXT_REPLY_MARK)} + 'abab') throw new Error('the call answered ' + String(reply).slice(0, 200));
})();
`;
