import type { RequestOptions, Server, ServerContext } from '@modelcontextprotocol/server';
import type { InputAnswer, InputRequest } from '@toolhost/plugin-sdk';
import { matchesStarGlob } from '../core/register/policy.js';
import type { InputAsker } from '../types.js';
import { messageOf } from '../util/errors.js';

/**
 * A tool's `ctx.ask` over MCP, routed like approvals: to the client of the request the call came
 * with, only for what it declared (elicitation, sampling, roots), and a form only to a client
 * `approvals.mcpClients` lists: an answer from any other client may be its own, not a person's
 * (a client names itself). Sampling and roots ask the client's model and its folders, not a
 * person, so the capability alone decides. 2025-11-25 sends the client each request at once;
 * 2026-07-28 ends the round with `input_required` (see approval-2026.ts for the state).
 */

/** The client capability each request needs, by method. */
const NEEDS = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const satisfies Record<InputRequest['method'], string>;

type Capability = (typeof NEEDS)[InputRequest['method']];

/** What a client is, for the rules: its name and what it declared. */
interface AskedClient {
  readonly name: string;
  readonly capabilities: Readonly<Record<string, unknown>> | undefined;
}

/** Why `client` cannot take `request`: a capability it lacks, or (forms) the list. */
function refusalOf(
  request: InputRequest,
  client: AskedClient,
  listed: readonly string[],
): { capability?: Capability; message: string } | undefined {
  const capability = NEEDS[request.method];
  if (client.capabilities?.[capability] === undefined) {
    return {
      capability,
      message: `the MCP client "${client.name}" did not declare the ${capability} capability, which ${request.method} needs`,
    };
  }
  if (request.method === 'elicitation/create' && !listed.some((p) => matchesStarGlob(p, client.name))) {
    return {
      message: `the MCP client "${client.name}" is not listed in approvals.mcpClients, so a form sent to it may be answered by the client itself rather than a person. Add "${client.name}" there only if it shows forms to a person`,
    };
  }
  return undefined;
}

/** Splits `requests` into what can be asked and what is refused; a required refusal throws. */
function sort(
  requests: Readonly<Record<string, InputRequest>>,
  optional: boolean,
  client: AskedClient,
  listed: readonly string[],
  onMissing: (missing: Record<string, object>, message: string) => never,
): { ask: [string, InputRequest][]; refused: Record<string, InputAnswer> } {
  const ask: [string, InputRequest][] = [];
  const refused: Record<string, InputAnswer> = {};
  const missing: Record<string, object> = {};
  let first: string | undefined;
  for (const [key, request] of Object.entries(requests)) {
    const refusal = refusalOf(request, client, listed);
    if (refusal === undefined) ask.push([key, request]);
    else if (optional) refused[key] = { refused: refusal.message };
    else if (refusal.capability !== undefined) {
      missing[refusal.capability] = {};
      first ??= refusal.message;
    } else throw new Error(`ctx.ask: ${refusal.message}`);
  }
  if (first !== undefined) onMissing(missing, `ctx.ask: ${first}`);
  return { ask, refused };
}

/** The asker of a 2025-11-25 call: each request is sent to the client on the call's stream. */
export function legacyAsker(
  server: Server,
  ctx: ServerContext,
  clients: () => readonly string[],
): InputAsker {
  return async (requests, optional) => {
    const client = {
      name: server.getClientVersion()?.name ?? 'unknown',
      capabilities: server.getClientCapabilities() as Record<string, unknown> | undefined,
    };
    const { ask, refused } = sort(requests, optional, client, clients(), (_missing, message) => {
      throw new Error(message);
    });
    // Not in the SDK's type, but read by its request path: the request rides the call's stream.
    const options = { signal: ctx.mcpReq.signal, relatedRequestId: ctx.mcpReq.id } as RequestOptions;
    const answered = await Promise.all(
      ask.map(async ([key, request]): Promise<[string, InputAnswer]> => {
        try {
          if (request.method === 'elicitation/create') {
            return [key, await server.elicitInput({ mode: 'form', ...request.params } as never, options)];
          }
          if (request.method === 'sampling/createMessage') {
            return [key, await server.createMessage(request.params as never, options)];
          }
          return [key, await server.listRoots(undefined, options)];
        } catch (error) {
          throw new Error(`ctx.ask: the client failed "${key}" (${request.method}): ${messageOf(error)}`);
        }
      }),
    );
    return { ...refused, ...Object.fromEntries(answered) };
  };
}

/** A valid answer of `method` in a client's `inputResponses` entry, else `undefined`. */
export function answerOf(method: InputRequest['method'], value: unknown): InputAnswer | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const answer = value as Record<string, unknown>;
  switch (method) {
    case 'elicitation/create':
      return ['accept', 'decline', 'cancel'].includes(answer.action as string) ? answer : undefined;
    case 'sampling/createMessage':
      return typeof answer.role === 'string' && typeof answer.content === 'object' ? answer : undefined;
    case 'roots/list':
      return Array.isArray(answer.roots) ? answer : undefined;
  }
}

/** One 2026-07-28 round of a call, as its asker and its handler share it. */
export interface ModernRound {
  /** The client, from the request's envelope. */
  readonly client: AskedClient;
  /** This round's `inputResponses`, as the client sent them. */
  readonly responses: Readonly<Record<string, unknown>>;
  /** Answers of earlier rounds, from the verified `requestState`. */
  readonly earlier: Readonly<Record<string, unknown>>;
  /** Every answer the call has had so far, to carry into the next round's state. */
  readonly known: Record<string, unknown>;
  /** What this round must ask: set when an ask found no answer. */
  pending?: Record<string, InputRequest>;
  /** Capabilities a required ask needs and the client did not declare. */
  missing?: { capabilities: Record<string, object>; message: string };
}

/** Thrown into the tool when its round ends at an ask; the tool's own result is dropped. */
const ROUND_ENDS =
  'ctx.ask: the client is being asked; this round of the call ends here, and the call runs again from its start with the answers';

/** The asker of a 2026-07-28 call: answers from this round and the state, else the round ends. */
export function modernAsker(round: ModernRound, clients: () => readonly string[]): InputAsker {
  return async (requests, optional) => {
    const { ask, refused } = sort(requests, optional, round.client, clients(), (missing, message) => {
      round.missing = { capabilities: { ...round.missing?.capabilities, ...missing }, message };
      throw new Error(message);
    });
    const answers: Record<string, InputAnswer> = { ...refused };
    const unanswered: Record<string, InputRequest> = {};
    for (const [key, request] of ask) {
      const answer =
        answerOf(request.method, round.responses[key]) ?? answerOf(request.method, round.earlier[key]);
      if (answer === undefined) unanswered[key] = request;
      else {
        answers[key] = answer;
        round.known[key] = answer;
      }
    }
    if (Object.keys(unanswered).length > 0) {
      round.pending = { ...round.pending, ...unanswered };
      throw new Error(ROUND_ENDS);
    }
    return answers;
  };
}
