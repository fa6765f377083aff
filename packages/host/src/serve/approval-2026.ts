import { createHash, randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createRequestStateCodec,
  type InputRequests,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  MissingRequiredClientCapabilityError,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ApprovalHandler, ApprovalRequest } from '../core/dispatch/approvals.js';
import { matchesStarGlob } from '../core/register/policy.js';
import { APPROVAL_INPUT_KEY } from '../sources/ask.js';
import { approvalMessage, mcpRefusal } from './approval.js';
import type { ModernRound } from './ask.js';

/**
 * Approvals for 2026-07-28 clients, over multi round-trip requests: the server cannot send the
 * client a request, so a call that needs a person ends with an `input_required` result carrying
 * the form, and the client calls again with the answer and the `requestState` it got.
 *
 * The call is run again from the start on the retry (before-hooks too): nothing of it is kept
 * between the rounds, so any server process holding the same key can continue it. The state is
 * HMAC-sealed (`serve.requestStateKey`) and names the tool and a hash of the exact input the
 * person saw; the answer counts only for that tool and that input, within ten minutes. A retry
 * whose hooks produce another input is asked about again. A 2026 client's answer covers one call:
 * every 2026 request shares one host session, so an `allow-always` would reach other clients.
 */

/**
 * What a sealed `requestState` says of a call between its rounds: which request it belongs to
 * (the tool as named and a hash of the exact arguments), an approval it asked for or was given
 * (a hash of the tool's owner, name and the input the person saw, never the input: the state is signed, not
 * encrypted), and the answers its `ctx.ask` had so far (the client's own answers).
 */
export interface CallRoundState {
  readonly kind: 'call';
  readonly tool: string;
  readonly call: string;
  /** Who made the request (the principal's id), so another caller cannot continue it. */
  readonly principal?: string;
  readonly approval?: string;
  readonly approved?: string;
  readonly answers?: Readonly<Record<string, unknown>>;
}

/** Largest JSON of the answers a state carries on: past it the call ends with an error. */
const MAX_STATE_ANSWERS_CHARS = 64 * 1024;

/** One 2026 `tools/call` while it runs: its request, its round, and the approval it must ask for. */
export interface ModernCall {
  readonly ctx: ServerContext;
  /** Who made the request (the principal's id), when the endpoint authenticated one. */
  readonly principal?: string | undefined;
  /** The round's asks and answers (made on first use: most calls ask nothing). */
  round?: ModernRound;
  /** The verified state of this very request, if it came with one. */
  state?: CallRoundState | undefined;
  asked?: ApprovalRequest;
  /** The hash of the approval given in this round. */
  approved?: string;
}

/** The hash binding a state to one request: its tool name and exact arguments. */
export function callHash(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(tool)
    .update('\0')
    .update(JSON.stringify(args ?? {}) ?? '')
    .digest('hex');
}

/**
 * A 2026 call in flight: its state read and checked once, here, against its own request and its
 * caller (a state minted for another principal is not this request's).
 */
export function modernCall(ctx: ServerContext, tool: string, args: unknown, principal?: string): ModernCall {
  const state = ctx.mcpReq.requestState<CallRoundState>();
  const own =
    state?.kind === 'call' &&
    state.tool === tool &&
    state.call === callHash(tool, args) &&
    state.principal === principal
      ? state
      : undefined;
  return { ctx, principal, state: own };
}

/** The client of a 2026 request, from its envelope (the SDK hides its keys from the public type). */
function clientOf(ctx: ServerContext): { name: string; capabilities: Record<string, unknown> | undefined } {
  const envelope = ctx.mcpReq.envelope as
    | {
        [CLIENT_INFO_META_KEY]?: { name?: string };
        [CLIENT_CAPABILITIES_META_KEY]?: Record<string, unknown>;
      }
    | undefined;
  return {
    name: envelope?.[CLIENT_INFO_META_KEY]?.name ?? 'unknown',
    capabilities: envelope?.[CLIENT_CAPABILITIES_META_KEY],
  };
}

/** The round of `call`, made on first use. */
export function roundOf(call: ModernCall): ModernRound {
  if (call.round === undefined) {
    const earlier = call.state?.answers ?? {};
    const responses = call.ctx.mcpReq.inputResponses;
    call.round = {
      client: clientOf(call.ctx),
      responses: typeof responses === 'object' && responses !== null ? responses : {},
      earlier,
      known: { ...earlier },
    };
  }
  return call.round;
}

/** The codec sealing call states: the configured key, else a random one for this process. */
export function approvalStateCodec(key: string | undefined): RequestStateCodec<CallRoundState> {
  return createRequestStateCodec<CallRoundState>({
    key: key ?? randomBytes(32),
    ttlSeconds: 600,
    bind: (ctx) => ctx.mcpReq.method,
  });
}

/**
 * The hash a state names of an approval: of the tool's owner and name and the exact input, so an
 * answer given for one owner's tool is not taken for another's of the same name (a plugin
 * replaced between the rounds, another replica).
 */
function inputHash(request: Pick<ApprovalRequest, 'owner' | 'tool' | 'input'>): string {
  return createHash('sha256')
    .update(request.owner)
    .update('\0')
    .update(request.tool)
    .update('\0')
    .update(JSON.stringify(request.input) ?? 'undefined')
    .digest('hex');
}

/**
 * The approval handler of the 2026 session. The client must have declared elicitation and be
 * listed in `approvals.mcpClients`, as over 2025-11-25. An answer in the retry, for the tool and
 * input its state names, decides; otherwise the call is stopped (`cancelled`) and its handler
 * answers `input_required` with the form instead of a result.
 */
export function modernApprover(
  calls: ReadonlyMap<string, ModernCall>,
  clients: () => readonly string[],
): ApprovalHandler {
  return async (request) => {
    const call = calls.get(request.toolUseId);
    if (call === undefined) {
      return { decision: 'deny', by: 'mcp', reason: 'the call came with no MCP request to ask through' };
    }
    const { name: client, capabilities } = clientOf(call.ctx);
    const refusal = mcpRefusal(
      request,
      client,
      capabilities?.elicitation !== undefined,
      (pattern) => matchesStarGlob(pattern, client),
      clients(),
    );
    if (refusal !== undefined) return refusal;
    const by = `mcp-client:${client}`;
    const hash = inputHash(request);
    // Approved in an earlier round of this very request (the state names its exact arguments).
    if (call.state?.approved === hash) return { decision: 'allow-once', by };
    if (call.state?.approval === hash) {
      const answer = inputResponse(call.ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
      if (answer.kind === 'elicit') {
        if (answer.action === 'decline') return { decision: 'deny', by, reason: 'declined' };
        if (answer.action === 'cancel') return { decision: 'cancelled', by };
        const chosen = answer.content?.decision;
        if (chosen === 'allow-once' || chosen === 'allow-always') {
          call.approved = hash;
          return { decision: 'allow-once', by };
        }
        return {
          decision: 'deny',
          by,
          reason: `accepted without a valid decision (${JSON.stringify(chosen)})`,
        };
      }
    }
    call.asked = request;
    return { decision: 'cancelled', by: 'mcp' };
  };
}

/**
 * The `input_required` result that ends this round of `call`, when it must ask something: the
 * approval form it stopped at and what its `ctx.ask` found no answer for, with a state carrying
 * the approval given and the answers so far. `undefined` when the round ended with a result.
 * A required ask of a capability the client lacks fails the request (-32021).
 */
export async function roundEnd(
  call: ModernCall,
  codec: RequestStateCodec<CallRoundState>,
  tool: string,
  args: unknown,
): Promise<InputRequiredResult | CallToolResult | undefined> {
  const { round, asked } = call;
  if (round?.missing !== undefined) {
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: round.missing.capabilities },
      round.missing.message,
    );
  }
  if (asked === undefined && round?.pending === undefined) return undefined;
  const inputRequests: InputRequests = {};
  for (const [key, request] of Object.entries(round?.pending ?? {})) {
    inputRequests[key] =
      request.method === 'elicitation/create'
        ? inputRequired.elicit({ mode: 'form', ...request.params } as never)
        : request.method === 'sampling/createMessage'
          ? inputRequired.createMessage(request.params as never)
          : inputRequired.listRoots();
  }
  if (asked !== undefined) {
    inputRequests[APPROVAL_INPUT_KEY] = inputRequired.elicit({
      mode: 'form',
      message: approvalMessage(asked),
      requestedSchema: {
        type: 'object',
        properties: {
          decision: { type: 'string', title: 'Decision', enum: ['allow-once', 'deny'], default: 'deny' },
        },
        required: ['decision'],
      },
    });
  }
  const answers = round?.known ?? call.state?.answers ?? {};
  if (JSON.stringify(answers).length > MAX_STATE_ANSWERS_CHARS) {
    return {
      content: [
        {
          type: 'text',
          text: `Tool "${tool}" was stopped: the answers its ctx.ask collected are over ${MAX_STATE_ANSWERS_CHARS} characters of JSON, the most a requestState carries between rounds`,
        },
      ],
      isError: true,
    };
  }
  const approved = call.approved ?? call.state?.approved;
  const state: CallRoundState = {
    kind: 'call',
    tool,
    call: callHash(tool, args),
    ...(call.principal === undefined ? {} : { principal: call.principal }),
    ...(asked === undefined ? {} : { approval: inputHash(asked) }),
    ...(approved === undefined ? {} : { approved }),
    ...(Object.keys(answers).length === 0 ? {} : { answers }),
  };
  return inputRequired({ inputRequests, requestState: await codec.mint(state, call.ctx) });
}
