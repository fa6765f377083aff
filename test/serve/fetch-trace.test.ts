import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A plugin's ctx.fetch carries the served call's W3C trace context, as a bridged call does. */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
const TRACESTATE = 'vendor=abc';
const BAGGAGE = 'tenant=42';

const plugin = (port: number) => `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'traced',
  permissions: { net: ['127.0.0.1:${port}'] },
  tools: [
    defineTool({
      name: 'traced_fetch',
      description: 'Fetches the test server, with its own traceparent header when asked',
      input: z.object({ own: z.string().optional() }),
      execute: async ({ own }, ctx) => {
        const res = await ctx.fetch('http://127.0.0.1:${port}/', {
          headers: own === undefined ? {} : { traceparent: own },
        });
        return res.text();
      },
    }),
  ],
});
`;

let root: string;
let host: ToolHost;
let served: McpHttpServer;
let client: Client;
const seen: IncomingHttpHeaders[] = [];
const service = createServer((req, res) => {
  seen.push(req.headers);
  res.end('ok');
});

beforeAll(async () => {
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const port = (service.address() as AddressInfo).port;
  root = await mkdtemp(path.join(tmpdir(), 'toolhost-fetch-trace-'));
  await mkdir(path.join(root, 'plugins', 'traced'), { recursive: true });
  await writeFile(path.join(root, 'plugins', 'traced', 'index.ts'), plugin(port));
  await writeFile(
    path.join(root, 'toolhost.config.json'),
    JSON.stringify({ plugins: { traced: { grants: { net: [`127.0.0.1:${port}`] } } } }),
  );
  host = await createHost({ root, builtins: false, availability: { env: {} } });
  served = await serveHttp(host, { auth: { allowUnauthenticated: true }, audit: false });
  client = new Client({ name: 'fetch-trace', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
});

afterAll(async () => {
  await client?.close();
  await served?.close();
  await host?.close();
  await new Promise<void>((resolve) => service.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

/** Calls the tool and gives the headers its fetch reached the service with. */
async function fetchedWith(meta: Record<string, string> | undefined, own?: string) {
  seen.length = 0;
  const result = await client.callTool({
    name: 'traced_fetch',
    arguments: own === undefined ? {} : { own },
    ...(meta === undefined ? {} : { _meta: meta }),
  });
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  expect(seen).toHaveLength(1);
  return seen[0] as IncomingHttpHeaders;
}

describe('ctx.fetch and the trace context', () => {
  it('without an SDK, sends on the caller trace context as it came', async () => {
    const headers = await fetchedWith({ traceparent: TRACEPARENT, tracestate: TRACESTATE, baggage: BAGGAGE });
    expect(headers.traceparent).toBe(TRACEPARENT);
    expect(headers.tracestate).toBe(TRACESTATE);
    expect(headers.baggage).toBe(BAGGAGE);
  });

  it('sends no trace headers for a call that came with no trace context', async () => {
    const headers = await fetchedWith(undefined);
    expect(headers.traceparent).toBeUndefined();
    expect(headers.tracestate).toBeUndefined();
  });

  it('keeps a traceparent the plugin set itself', async () => {
    const own = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-00`;
    const headers = await fetchedWith({ traceparent: TRACEPARENT }, own);
    expect(headers.traceparent).toBe(own);
  });

  it('with an SDK registered, names the execute_tool span as the parent of the service', async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    try {
      const headers = await fetchedWith({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
      const execute = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool traced_fetch');
      expect(execute?.spanContext().traceId).toBe(TRACE_ID);
      expect(headers.traceparent).toBe(`00-${TRACE_ID}-${execute?.spanContext().spanId}-01`);
      expect(headers.tracestate).toBe(TRACESTATE);
    } finally {
      trace.disable();
    }
  });
});
