import type { RequestId, RequestOptions, Server } from '@modelcontextprotocol/server';
import {
  type ApprovalAnswer,
  type ApprovalChoice,
  type ApprovalRequest,
  neededBy,
} from '../core/dispatch/approvals.js';
import { matchesStarGlob } from '../core/register/policy.js';
import { messageOf } from '../util/errors.js';

/** What the MCP client may answer in the form; flat, as elicitation requires. */
const DECISIONS: readonly ApprovalChoice[] = ['allow-once', 'allow-always', 'deny'];

/** The MCP side of approvals: who the client is, which clients may approve, where the call is. */
export interface McpApprovalContext {
  readonly server: Server;
  /** `approvals.mcpClients` in force. */
  readonly clients: () => readonly string[];
  /** The JSON-RPC id of the `tools/call` a tool use id belongs to (the form goes on its stream). */
  readonly requestOf: (toolUseId: string) => RequestId | undefined;
}

/**
 * Answers a session's approvals by asking the MCP client with an `elicitation/create` form, when
 * the client declared form elicitation and config lets it approve (`approvals.mcpClients`). An
 * elicitation answer is not proof a person approved: an automated client can accept on its own,
 * and a client names itself; hence the list, empty unless the operator fills it.
 * accept → the chosen decision; decline → deny; cancel → cancelled; no reply → the queue's
 * timeout, which aborts the request (the client gets `notifications/cancelled`).
 */
export function mcpApprover(
  context: McpApprovalContext,
): (request: ApprovalRequest) => Promise<ApprovalAnswer> {
  return async (request) => {
    const { server } = context;
    const client = server.getClientVersion()?.name ?? 'unknown';
    const by = `mcp-client:${client}`;
    const refusal = mcpRefusal(
      request,
      client,
      server.getClientCapabilities()?.elicitation?.form !== undefined,
      (pattern) => matchesStarGlob(pattern, client),
      context.clients(),
    );
    if (refusal !== undefined) return refusal;
    const relatedRequestId = context.requestOf(request.toolUseId);
    try {
      const result = await server.elicitInput(
        {
          mode: 'form',
          message: approvalMessage(request),
          requestedSchema: {
            type: 'object',
            properties: {
              decision: {
                type: 'string',
                title: 'Decision',
                enum: [...DECISIONS],
                default: 'deny',
              },
            },
            required: ['decision'],
          },
        },
        {
          signal: request.signal,
          // The queue's own deadline decides; the SDK's default (60 s) must not cut in first.
          timeout: request.timeoutMs + 60_000,
          // Not in the SDK's type, but read by its request path: the form rides the call's stream.
          ...(relatedRequestId === undefined ? {} : { relatedRequestId }),
        } as RequestOptions,
      );
      if (result.action === 'decline') return { decision: 'deny', by, reason: 'declined' };
      if (result.action === 'cancel') return { decision: 'cancelled', by };
      const chosen = result.content?.decision;
      return DECISIONS.includes(chosen as ApprovalChoice)
        ? { decision: chosen as ApprovalChoice, by }
        : { decision: 'deny', by, reason: `accepted without a valid decision (${JSON.stringify(chosen)})` };
    } catch (error) {
      return { decision: 'deny', by: 'mcp', reason: `the elicitation request failed: ${messageOf(error)}` };
    }
  };
}

/** The question shown to the person: title, description, tool, severity and the exact input. */
export function approvalMessage(request: ApprovalRequest): string {
  const description = request.description === undefined ? '' : `\n${request.description}`;
  return `${request.title}${description}\nTool: ${request.tool} (${request.severity})\nInput: ${JSON.stringify(request.input)}`;
}

/**
 * Why an MCP client cannot approve `request`, whatever the revision: it did not declare
 * elicitation, or `approvals.mcpClients` does not list it. Undefined when it may be asked.
 */
export function mcpRefusal(
  request: ApprovalRequest,
  client: string,
  canElicit: boolean,
  listed: (pattern: string) => boolean,
  clients: readonly string[],
): ApprovalAnswer | undefined {
  const why = `approval is required by ${neededBy(request)}`;
  if (!canElicit) {
    return {
      decision: 'deny',
      by: 'mcp',
      reason: `the MCP client "${client}" cannot ask a person (it did not declare the elicitation capability), and ${why}${request.source === 'config' ? `; remove "${request.pattern}" from tools.approve to call it over MCP without approval` : ''}`,
    };
  }
  if (!clients.some(listed)) {
    return {
      decision: 'deny',
      by: 'mcp',
      reason: `the MCP client "${client}" is not listed in approvals.mcpClients, so its answers do not count as approvals (${why}). Add "${client}" there only if it shows the question to a person: a client names itself, and an automated one can accept on its own`,
    };
  }
  return undefined;
}
