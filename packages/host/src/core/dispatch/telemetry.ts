/**
 * Spans and a metric of tool calls through `@opentelemetry/api`: no-ops unless the embedder (or
 * config `telemetry.otlp`, telemetry/otlp.ts) registers an SDK. Each wrapped call of a session is
 * an `execute_tool {name}` span (kind INTERNAL, the GenAI semantic conventions:
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id` = the model's tool_use id,
 * `gen_ai.tool.type`, `error.type` when it failed) whose parent is the caller's `traceparent`;
 * its own context is what the call passes on (a bridged server's `_meta`). A served call's MCP
 * server span (serve/server.ts) is that parent. The duration goes to the histogram
 * `gen_ai.execute_tool.duration` (seconds), in batches that any collection takes whole.
 */
import {
  type Attributes,
  type Context,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { TraceContext } from '../../types.js';
import type { CallStatus } from '../wrap/wrapper.js';

const SCOPE = 'toolhost';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A trace context made from one of this process's spans, which stays its children's parent
 * without its `traceparent` being parsed back. The span is a private field: spreading the
 * context into a bridged call's `_meta`, or serializing it, copies the W3C fields alone. (A
 * WeakMap from context to span did the same, at a cost: its entries, one per call, were a tenth
 * of what tracing a call took, and more of the collector's work.)
 */
class SpanTrace implements TraceContext {
  readonly traceparent: string;
  declare readonly tracestate?: string;
  declare readonly baggage?: string;
  readonly #span: Span;
  readonly #traceId: string;

  constructor(span: Span, traceId: string, traceparent: string, from: TraceContext | undefined) {
    this.traceparent = traceparent;
    this.#traceId = traceId;
    if (from?.tracestate !== undefined) this.tracestate = from.tracestate;
    if (from?.baggage !== undefined) this.baggage = from.baggage;
    this.#span = span;
  }

  /** The span `context` was made from, when one of this process's spans made it. */
  static spanOf(context: TraceContext): Span | undefined {
    return #span in context ? (context as SpanTrace).#span : undefined;
  }

  /** The trace id of `context` when one of this process's spans made it (no parsing). */
  static traceIdOf(context: TraceContext): string | undefined {
    return #traceId in context ? (context as SpanTrace).#traceId : undefined;
  }
}

/** The context whose remote parent `traceparent` names; the root context when it names none. */
export function parentOf(traceContext: TraceContext | undefined): Context {
  if (traceContext === undefined) return ROOT_CONTEXT;
  const own = SpanTrace.spanOf(traceContext);
  if (own !== undefined) return trace.setSpan(ROOT_CONTEXT, own);
  const match = TRACEPARENT.exec(traceContext.traceparent);
  if (match === null) return ROOT_CONTEXT;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/** `span`'s context as a W3C trace context (the caller's `tracestate` and `baggage` kept). */
export function traceContextOf(span: Span, from: TraceContext | undefined): TraceContext | undefined {
  const context = span.spanContext();
  if (!trace.isSpanContextValid(context)) return from;
  const flags = (context.traceFlags & TraceFlags.SAMPLED) === 0 ? '00' : '01';
  return new SpanTrace(span, context.traceId, `00-${context.traceId}-${context.spanId}-${flags}`, from);
}

/**
 * The trace id of a W3C trace context: its `traceparent`'s second field, read without parsing
 * when one of this process's spans made the context; undefined when the `traceparent` is not
 * well formed.
 */
export function traceIdOf(context: TraceContext | undefined): string | undefined {
  if (context === undefined) return undefined;
  return SpanTrace.traceIdOf(context) ?? TRACEPARENT.exec(context.traceparent)?.[1];
}

let tracer: { provider: TracerProvider; tracer: Tracer } | undefined;

/** This scope's tracer of the provider registered now (asked once per provider, not per span). */
function tracerNow(): Tracer {
  const provider = trace.getTracerProvider();
  if (tracer?.provider !== provider) tracer = { provider, tracer: provider.getTracer(SCOPE) };
  return tracer.tracer;
}

/** Starts a span of this scope. */
export function startSpan(
  name: string,
  kind: SpanKind,
  parent: Context,
  attributes: Record<string, string | number>,
): Span {
  return tracerNow().startSpan(name, { kind, attributes }, parent);
}

/** Why a call failed, for `error.type`; undefined when it succeeded. */
export function errorTypeOf(status: CallStatus): string | undefined {
  if (status === 'ok') return undefined;
  return status === 'tool-error' ? 'tool_error' : status;
}

/** A batch of duration records this long is recorded at once. */
const DURATION_BATCH = 64;
/** Longest a duration record waits in its batch, ms. */
const DURATION_FLUSH_MS = 50;

/**
 * The duration histogram of one meter provider, recorded in batches. Recorded where its call
 * ended, a value cost a served call 10-15 µs (the SDK's attribute hashing and aggregation, run
 * cold between requests; about 1 µs in a loop of records), a third of what tracing cost it. So a
 * call's value waits in a batch: recorded `DURATION_FLUSH_MS` after the batch's first, or at once
 * at `DURATION_BATCH` values, or at the start of any collection (a periodic export, `forceFlush`,
 * `shutdown`), which runs the observable callbacks of a meter before it reads its instruments.
 * That callback's instrument observes nothing, so it exports nothing. With no SDK registered (the
 * API's no-op meter) nothing is kept and no timer is set.
 */
class Durations {
  readonly provider: MeterProvider;
  readonly #histogram: Histogram;
  readonly #noop: boolean;
  /** Pairs: seconds, then the attributes. */
  #pending: (number | Attributes)[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(provider: MeterProvider) {
    this.provider = provider;
    const meter = provider.getMeter(SCOPE);
    this.#noop = meter === createNoopMeter();
    this.#histogram = meter.createHistogram('gen_ai.execute_tool.duration', {
      description: 'Duration of tool calls, as the wrapper ran them',
      unit: 's',
    });
    const collecting = meter.createObservableGauge('toolhost.execute_tool.duration.batch', {
      description: 'Never observed: its callback records the pending durations when a collection starts',
    });
    meter.addBatchObservableCallback(() => this.flush(), [collecting]);
  }

  record(seconds: number, attributes: Attributes): void {
    if (this.#noop) return;
    this.#pending.push(seconds, attributes);
    if (this.#pending.length >= DURATION_BATCH * 2) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), DURATION_FLUSH_MS).unref();
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += 2) {
      this.#histogram.record(pending[i] as number, pending[i + 1] as Attributes);
    }
  }
}

let histogram: Durations | undefined;

/** The duration histogram of the meter provider registered now. */
function durations(): Durations {
  const provider = metrics.getMeterProvider();
  if (histogram?.provider !== provider) {
    // Values of a provider no longer registered still go to it (its timer), not to this one.
    histogram = new Durations(provider);
  }
  return histogram;
}

/** The metric's attributes of a call of each tool that succeeded: the same object each time. */
const succeeded = new Map<string, Attributes>();
const MAX_SUCCEEDED = 1024;

function metricAttributes(name: string, error: string | undefined): Attributes {
  if (error !== undefined) {
    return { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'error.type': error };
  }
  let attributes = succeeded.get(name);
  if (attributes === undefined) {
    if (succeeded.size >= MAX_SUCCEEDED) succeeded.clear();
    attributes = Object.freeze({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name });
    succeeded.set(name, attributes);
  }
  return attributes;
}

/** One `execute_tool` span, begun: `end` closes it with how the call went. */
export function executeToolSpan(
  name: string,
  toolUseId: string,
  sourceKind: string,
  caller: TraceContext | undefined,
): { readonly trace: TraceContext | undefined; end(status: CallStatus, durationMs: number): void } {
  const span = startSpan(`execute_tool ${name}`, SpanKind.INTERNAL, parentOf(caller), {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': toolUseId,
    'gen_ai.tool.type': sourceKind === 'builtin' ? 'function' : 'extension',
  });
  return {
    trace: traceContextOf(span, caller),
    end(status, durationMs) {
      const error = errorTypeOf(status);
      if (error !== undefined) {
        span.setAttribute('error.type', error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      durations().record(durationMs / 1000, metricAttributes(name, error));
    },
  };
}

export { SpanKind, SpanStatusCode };
