import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { metrics, SpanKind, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createHost, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

/** Spans and the duration metric of served calls, with the GenAI and MCP semantic conventions. */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** A bridged MCP server whose tool answers with the `_meta` its call came with. */
async function metaEchoServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'meta-echo', version: '1.0.0' });
    server.registerTool('meta', { description: 'Answers with the _meta of its call' }, async (ctx) => ({
      content: [{ type: 'text', text: JSON.stringify(ctx.mcpReq._meta ?? {}) }],
    }));
    return server;
  });
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(key, value);
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const tools = [
  defineTool({ name: 'echo', description: 'Echoes', input: z.object({}), execute: () => 'echo' }),
  defineTool({
    name: 'fails',
    description: 'Fails',
    input: z.object({}),
    execute: () => {
      throw new Error('no');
    },
  }),
];

async function served(host: ToolHost) {
  const http = await serveHttp(host, { auth: { allowUnauthenticated: true }, audit: false });
  const client = new Client({ name: 'otel-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  return { http, client };
}

describe('OpenTelemetry with an SDK the embedder registered (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  const reader = new TestReader();
  let host: ToolHost;
  let echo: Awaited<ReturnType<typeof metaEchoServer>>;

  beforeAll(async () => {
    echo = await metaEchoServer();
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    host = await createHost({
      builtins: false,
      pluginsDir: false,
      configFile: false,
      customTools: tools,
      mcpServers: { echo: { url: echo.url, net: [new URL(echo.url).host] } },
    });
  });

  afterAll(async () => {
    await host.close();
    await echo.close();
    trace.disable();
    metrics.disable();
  });

  it('makes a tools/call SERVER span under the caller traceparent, and an execute_tool span inside it', async () => {
    const { http, client } = await served(host);
    try {
      const result = await client.callTool({
        name: 'echo',
        arguments: {},
        _meta: { traceparent: TRACEPARENT },
      });
      const spans = exporter.getFinishedSpans();
      const server = spans.find((s) => s.name === 'tools/call echo');
      const execute = spans.find((s) => s.name === 'execute_tool echo');
      expect(server?.kind).toBe(SpanKind.SERVER);
      expect(server?.spanContext().traceId).toBe(TRACE_ID);
      expect(server?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
      expect(server?.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2025-11-25',
        'gen_ai.tool.name': 'echo',
      });
      expect(typeof server?.attributes['jsonrpc.request.id']).toBe('string');
      expect(server?.attributes['mcp.session.id']).toBe(
        (client.transport as StreamableHTTPClientTransport).sessionId,
      );
      expect(execute?.kind).toBe(SpanKind.INTERNAL);
      expect(execute?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
      // The caller's span is remote; the server span is the execute_tool span's parent in this process.
      expect(server?.parentSpanContext?.isRemote).toBe(true);
      expect(execute?.parentSpanContext?.isRemote).not.toBe(true);
      expect(execute?.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'gen_ai.tool.call.id': server?.attributes['jsonrpc.request.id'],
      });
      expect(execute?.attributes['error.type']).toBeUndefined();
      expect(result.isError).not.toBe(true);
      // A bridged server's call carries the execute_tool span's context: its spans are its children.
      const bridged = await client.callTool({
        name: 'mcp__echo__meta',
        arguments: {},
        _meta: { traceparent: TRACEPARENT },
      });
      const meta = JSON.parse((bridged.content as { text: string }[])[0]?.text ?? '{}') as {
        traceparent?: string;
      };
      const bridgedSpan = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool mcp__echo__meta');
      expect(meta.traceparent).toBe(`00-${TRACE_ID}-${bridgedSpan?.spanContext().spanId}-01`);
    } finally {
      await client.close();
      await http.close();
    }
  });

  it('marks a failed call with error.type on both spans, and records the duration metric', async () => {
    exporter.reset();
    const { http, client } = await served(host);
    try {
      await client.callTool({ name: 'fails', arguments: {} });
    } finally {
      await client.close();
      await http.close();
    }
    const spans = exporter.getFinishedSpans();
    expect(spans.find((s) => s.name === 'execute_tool fails')?.attributes['error.type']).toBe(
      'executor-threw',
    );
    expect(spans.find((s) => s.name === 'tools/call fails')?.attributes['error.type']).toBe('tool_error');
    const { resourceMetrics } = await reader.collect();
    const collected = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    // The instrument whose callback records the batched durations observes nothing: not exported.
    expect(collected.map((m) => m.descriptor.name)).not.toContain('toolhost.execute_tool.duration.batch');
    const metric = collected.find((m) => m.descriptor.name === 'gen_ai.execute_tool.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const points = (metric?.dataPoints ?? []) as {
      attributes: Record<string, unknown>;
      value: { count: number };
    }[];
    expect(points.find((p) => p.attributes['gen_ai.tool.name'] === 'fails')?.value.count).toBe(1);
    expect(points.find((p) => p.attributes['gen_ai.tool.name'] === 'echo')?.value.count).toBe(1);
  });

  it('follows an SDK registered again: the spans go to the provider registered now', async () => {
    const again = new InMemorySpanExporter();
    trace.disable();
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: again })] }),
    );
    exporter.reset();
    const { http, client } = await served(host);
    try {
      await client.callTool({ name: 'echo', arguments: {} });
    } finally {
      await client.close();
      await http.close();
    }
    expect(again.getFinishedSpans().map((s) => s.name)).toEqual(['execute_tool echo', 'tools/call echo']);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('telemetry.otlp: the host exports over OTLP/HTTP', () => {
  it('sends the spans to a collector on loopback, flushed when the host closes', async () => {
    const received: { path: string; body: string }[] = [];
    const collector = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const host = await createHost({
      builtins: false,
      pluginsDir: false,
      configFile: false,
      customTools: tools,
      telemetry: { otlp: { endpoint, serviceName: 'toolhost-test' } },
    });
    try {
      const { http, client } = await served(host);
      await client.callTool({ name: 'echo', arguments: {}, _meta: { traceparent: TRACEPARENT } });
      await client.close();
      await http.close();
    } finally {
      await host.close();
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
    const traces = received
      .filter((r) => r.path === '/v1/traces')
      .map((r) => r.body)
      .join('\n');
    expect(traces).toContain('execute_tool echo');
    expect(traces).toContain('tools/call echo');
    expect(traces).toContain('toolhost-test');
    const metrics = received.filter((r) => r.path === '/v1/metrics').map((r) => r.body);
    expect(metrics.some((body) => body.includes('gen_ai.execute_tool.duration'))).toBe(true);
    expect(metrics.some((body) => body.includes('toolhost.execute_tool.duration.batch'))).toBe(false);
  });
});
