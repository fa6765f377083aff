import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, project, REPO, start } from './cli/cli.js';

interface Request {
  readonly tools: { name: string; input_schema: { type: string } }[];
  readonly system: string;
  readonly messages: { role: string; content: unknown }[];
}

async function bodyOf(request: IncomingMessage): Promise<Request> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text) as Request;
}

/**
 * A fake Messages API that asks for `add` once, then answers with the tool's result: the whole
 * conversation the example's loop must carry.
 */
function fakeMessagesApi() {
  const requests: Request[] = [];
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    requests.push(body);
    const last = body.messages.at(-1)?.content;
    const results = Array.isArray(last) ? last.filter((b) => b.type === 'tool_result') : [];
    const reply =
      results.length === 0
        ? {
            stop_reason: 'tool_use',
            content: [
              { type: 'text', text: 'Let me add those.' },
              { type: 'tool_use', id: 'toolu_1', name: 'add', input: { a: 2, b: 40 } },
            ],
          }
        : {
            stop_reason: 'end_turn',
            content: [{ type: 'text', text: `The tool says ${results[0].content[0].text}.` }],
          };
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        id: `msg_${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: 'fake',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
        ...reply,
      }),
    );
  });
  return { server, requests };
}

describe('examples/anthropic-agent.mjs', () => {
  const api = fakeMessagesApi();
  let url: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => api.server.close(() => resolve())));

  it('runs the agent loop with the official SDK on plain Node: tools out, tool_use in, tool_result back', async () => {
    const { root, dispose } = await project();
    try {
      const agent = start(
        process.execPath,
        [path.join(REPO, 'examples/anthropic-agent.mjs'), 'What is 2 + 40?'],
        {
          cwd: root,
          env: cleanEnv({
            ANTHROPIC_BASE_URL: url,
            ANTHROPIC_API_KEY: 'test-key',
            ANTHROPIC_MAX_RETRIES: '0',
          }),
        },
      );
      const exited = new Promise((resolve) => agent.child.once('close', resolve));
      await agent.stdout.waitFor(/The tool says 42\./);
      expect(await exited).toBe(0);
      expect(agent.stderr.text).toContain('-> add {"a":2,"b":40}');
      const [first, second] = api.requests;
      expect(first?.tools.find((t) => t.name === 'add')?.input_schema.type).toBe('object');
      expect(second?.messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '42' }] }],
      });
    } finally {
      await dispose();
    }
  });
});
