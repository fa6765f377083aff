import { createHash, randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ApprovalHandler, ApprovalRequest } from '../core/dispatch/approvals.js';
import { matchesStarGlob } from '../core/register/policy.js';
import { approvalMessage, mcpRefusal } from './approval.js';

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

/** What a sealed `requestState` of an approval says. */
export interface ApprovalState {
  readonly kind: 'approval';
  readonly tool: string;
  /** Who was asked (the principal's id), so another caller cannot continue the call with it. */
  readonly principal?: string;
  /** sha256 of the tool's owner, its name and the input's JSON: the state never carries the input itself (it is signed, not encrypted). */
  readonly input: string;
}

/** One 2026 `tools/call` while it runs: its request, and the approval it must ask for. */
export interface ModernCall {
  readonly ctx: ServerContext;
  asked?: ApprovalRequest;
}

/** The codec sealing approval states: the configured key, else a random one for this process. */
export function approvalStateCodec(key: string | undefined): RequestStateCodec<ApprovalState> {
  return createRequestStateCodec<ApprovalState>({
    key: key ?? randomBytes(32),
    ttlSeconds: 600,
    bind: (ctx) => ctx.mcpReq.method,
  });
}

/**
 * The hash a state names: of the tool's owner and name and the exact input, so an answer given
 * for one owner's tool is not taken for another's of the same name (a plugin replaced between
 * the rounds, another replica).
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
  principal?: string,
): ApprovalHandler {
  return async (request) => {
    const call = calls.get(request.toolUseId);
    if (call === undefined) {
      return { decision: 'deny', by: 'mcp', reason: 'the call came with no MCP request to ask through' };
    }
    // The SDK hides the envelope's keys from its public type; they are as the spec names them.
    const envelope = call.ctx.mcpReq.envelope as
      | {
          [CLIENT_INFO_META_KEY]?: { name?: string };
          [CLIENT_CAPABILITIES_META_KEY]?: { elicitation?: object };
        }
      | undefined;
    const client = envelope?.[CLIENT_INFO_META_KEY]?.name ?? 'unknown';
    const refusal = mcpRefusal(
      request,
      client,
      envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation !== undefined,
      (pattern) => matchesStarGlob(pattern, client),
      clients(),
    );
    if (refusal !== undefined) return refusal;
    const by = `mcp-client:${client}`;
    const state = call.ctx.mcpReq.requestState<ApprovalState>();
    if (
      state?.kind === 'approval' &&
      state.tool === request.tool &&
      state.input === inputHash(request) &&
      state.principal === principal
    ) {
      const answer = inputResponse(call.ctx.mcpReq.inputResponses, 'approval');
      if (answer.kind === 'elicit') {
        if (answer.action === 'decline') return { decision: 'deny', by, reason: 'declined' };
        if (answer.action === 'cancel') return { decision: 'cancelled', by };
        const chosen = answer.content?.decision;
        if (chosen === 'allow-once' || chosen === 'allow-always') return { decision: 'allow-once', by };
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

/** The `input_required` result that asks the approval `asked` of the client. */
export async function approvalInputRequired(
  asked: ApprovalRequest,
  codec: RequestStateCodec<ApprovalState>,
  ctx: ServerContext,
): Promise<InputRequiredResult | CallToolResult> {
  return inputRequired({
    inputRequests: {
      approval: inputRequired.elicit({
        mode: 'form',
        message: approvalMessage(asked),
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: 'Decision', enum: ['allow-once', 'deny'], default: 'deny' },
          },
          required: ['decision'],
        },
      }),
    },
    requestState: await codec.mint(
      {
        kind: 'approval',
        tool: asked.tool,
        input: inputHash(asked),
        ...(asked.principal === undefined ? {} : { principal: asked.principal }),
      },
      ctx,
    ),
  });
}
