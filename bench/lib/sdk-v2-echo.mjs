// A plain MCP server over stdio built on the SDK's v2 server (`@modelcontextprotocol/server`, the
// one `toolhost serve` is built on) with the same entry serve uses (`serveStdio`, which pins each
// connection to the revision its first message asks for), and one tool, `echo`, answering as
// server-everything's does. bench/floor.mjs measures it beside server-everything (the v1 SDK): what
// the SDK serve stands on costs by itself, with no toolhost in it.
//
// `node bench/lib/sdk-v2-echo.mjs`
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const TOOL = {
  name: 'echo',
  description: 'Echoes back the input',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

serveStdio(
  () => {
    const server = new Server({ name: 'sdk-v2-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [TOOL] }));
    server.setRequestHandler('tools/call', async (request) => ({
      content: [{ type: 'text', text: `Echo: ${request.params.arguments?.message}` }],
    }));
    return server;
  },
  { onerror: () => {} },
);
