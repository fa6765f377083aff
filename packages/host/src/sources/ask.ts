import type { ElicitAnswer, InputAnswer, InputRequest } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import type { InputAsker } from '../types.js';
import { issuesText, zodIssues } from '../util/zod-issues.js';

/**
 * `ctx.ask` and `ctx.elicit` as the host takes them from a tool, whatever ran it (a plugin's
 * isolate, an in-process tool): the requests checked, then handed to the asker of the MCP request
 * the call came with (serve/ask.ts). A call with no MCP client behind it has no one to ask.
 */

/** Most requests one `ctx.ask` may carry. */
const MAX_REQUESTS = 8;
/** Largest JSON of one `ctx.ask`'s requests: they are sent to the client as they are. */
const MAX_REQUESTS_CHARS = 64 * 1024;
/** The key a 2026-07-28 approval form uses in the same `inputRequests`. */
export const APPROVAL_INPUT_KEY = 'approval';

const params = z.record(z.string(), z.unknown());
const requestSchema = z.discriminatedUnion('method', [
  z.object({
    method: z.literal('elicitation/create'),
    params: z.object({ message: z.string().min(1), requestedSchema: params }).loose(),
  }),
  z.object({ method: z.literal('sampling/createMessage'), params }),
  z.object({ method: z.literal('roots/list'), params: params.optional() }),
]);
const askSchema = z.object({
  requests: z
    .record(z.string(), requestSchema)
    .refine((r) => Object.keys(r).length > 0, 'ask for at least one thing')
    .refine((r) => Object.keys(r).length <= MAX_REQUESTS, `at most ${MAX_REQUESTS} requests at once`),
  optional: z.boolean().optional(),
});

/** A tool's `ctx.ask` arguments, checked; throws an Error worded for the tool's author. */
function parseAsk(args: unknown): { requests: Record<string, InputRequest>; optional: boolean } {
  const parsed = askSchema.safeParse(args);
  if (!parsed.success) throw new Error(`ctx.ask: ${issuesText(zodIssues(parsed.error))}`);
  for (const key of Object.keys(parsed.data.requests)) {
    if (key === APPROVAL_INPUT_KEY) {
      throw new Error(
        `ctx.ask: at "requests.${key}": "${key}" is the host's own key (its approval form); use another`,
      );
    }
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key)) {
      throw new Error(
        `ctx.ask: at "requests": the key ${JSON.stringify(key.slice(0, 80))} must be 1 to 64 letters, digits, "_", "." or "-"`,
      );
    }
  }
  if (JSON.stringify(parsed.data.requests).length > MAX_REQUESTS_CHARS) {
    throw new Error(`ctx.ask: the requests are over ${MAX_REQUESTS_CHARS} characters of JSON`);
  }
  return {
    requests: parsed.data.requests as Record<string, InputRequest>,
    optional: parsed.data.optional === true,
  };
}

/** Runs a tool's `ctx.ask` (`args`: `{requests, optional?}`) through the call's asker. */
export async function askThrough(
  asker: InputAsker | undefined,
  args: unknown,
): Promise<Record<string, InputAnswer>> {
  const { requests, optional } = parseAsk(args);
  if (asker === undefined) {
    throw new Error(
      'ctx.ask: this call has no MCP client to ask (it came through the host API, not an MCP request); only a call from an MCP client can ask',
    );
  }
  return asker(requests, optional);
}

/** `ctx.elicit(params, key)`: one form through `askThrough`; the answer of its key. */
export async function elicitThrough(
  asker: InputAsker | undefined,
  params: unknown,
  key = 'elicit',
): Promise<ElicitAnswer> {
  const answers = await askThrough(asker, {
    requests: { [key]: { method: 'elicitation/create', params } },
  });
  return answers[key] as unknown as ElicitAnswer;
}
