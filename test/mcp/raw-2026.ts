/** A raw MCP 2026-07-28 request, as a client sends it: the envelope in `_meta` and the headers the revision requires. */

export const VERSION_2026 = '2026-07-28';

export interface RawReply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * POSTs `tools/call` of `tool` with `args` (and more `params`, e.g. `requestState` and
 * `inputResponses`) from a client named `approver` that declared form elicitation; returns the
 * JSON-RPC reply, whether it came as JSON or as one SSE event.
 */
export async function rawToolCall(
  url: string,
  id: number,
  tool: string,
  args: Record<string, unknown>,
  params: Record<string, unknown> = {},
): Promise<RawReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION_2026,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION_2026,
          'io.modelcontextprotocol/clientInfo': { name: 'approver', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  const line = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6);
  return JSON.parse(line) as RawReply;
}
