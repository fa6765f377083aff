import {
  type Attributes,
  type BatchObservableCallback,
  createNoopMeter,
  type MeterProvider,
  metrics,
  trace,
} from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  executeToolSpan,
  parentOf,
  traceContextOf,
  traceIdOf,
} from '../../../src/core/dispatch/telemetry.js';

/** The one reading of a trace id: a caller's traceparent, or a context this process's span made. */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('traceIdOf', () => {
  it("reads a caller's traceparent's second field, and nothing from a malformed one", () => {
    expect(traceIdOf({ traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` })).toBe(TRACE_ID);
    expect(traceIdOf({ traceparent: `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01` })).toBeUndefined();
    expect(traceIdOf({ traceparent: `00-${TRACE_ID}` })).toBeUndefined();
    expect(traceIdOf({ traceparent: '' })).toBeUndefined();
    expect(traceIdOf(undefined)).toBeUndefined();
  });

  it("gives a span-made context's trace id, and its copy (a bridged call's _meta) reads the same", () => {
    const span = new TracerProvider().getTracer('test').startSpan('call');
    const made = traceContextOf(span, { traceparent: 'ignored', baggage: 'user=a' });
    expect(made).toBeDefined();
    const id = span.spanContext().traceId;
    expect(traceIdOf(made)).toBe(id);
    const copy = { ...made } as Record<string, unknown>;
    expect(Object.keys(copy).sort()).toEqual(['baggage', 'traceparent']);
    expect(traceIdOf(copy as { traceparent: string })).toBe(id);
    span.end();
  });

  it('keeps the span as the parent of a made context, a remote parent for a copy', () => {
    const span = new TracerProvider().getTracer('test').startSpan('call');
    const made = traceContextOf(span, undefined);
    if (made === undefined) throw new Error('a recording span makes a context');
    expect(trace.getSpan(parentOf(made))).toBe(span);
    const remote = trace.getSpan(parentOf({ ...made }))?.spanContext();
    expect(remote?.isRemote).toBe(true);
    expect(remote?.spanId).toBe(span.spanContext().spanId);
    span.end();
  });
});

describe('the duration metric, recorded in batches', () => {
  /** A meter provider whose histogram keeps what is recorded, and whose collection can be run. */
  function recordingProvider() {
    const recorded: [number, Attributes | undefined][] = [];
    const callbacks: BatchObservableCallback[] = [];
    const noop = createNoopMeter();
    const provider: MeterProvider = {
      getMeter: () => ({
        ...noop,
        createHistogram: () => ({
          record: (value: number, attributes?: Attributes) => recorded.push([value, attributes]),
        }),
        createObservableGauge: (name: string) => noop.createObservableGauge(name),
        addBatchObservableCallback: (callback: BatchObservableCallback) => {
          callbacks.push(callback);
        },
      }),
    };
    const collect = () => {
      for (const callback of callbacks) void callback({ observe: () => {} });
    };
    return { provider, recorded, collect };
  }
  const call = (name: string, ms: number) =>
    executeToolSpan(name, 'toolu_1', 'plugin', undefined).end('ok', ms);

  afterEach(() => {
    vi.useRealTimers();
    metrics.disable();
  });

  it('records a call off its end: within 50 ms, or when a collection starts', () => {
    vi.useFakeTimers();
    const { provider, recorded, collect } = recordingProvider();
    metrics.setGlobalMeterProvider(provider);
    call('echo', 1500);
    call('echo', 20);
    expect(recorded).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(recorded.map(([seconds]) => seconds)).toEqual([1.5, 0.02]);
    expect(recorded[0]?.[1]).toEqual({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo' });
    call('other', 3);
    collect();
    expect(recorded.map(([seconds]) => seconds)).toEqual([1.5, 0.02, 0.003]);
    vi.advanceTimersByTime(50);
    expect(recorded).toHaveLength(3);
  });

  it('keeps nothing and sets no timer when no SDK is registered (the no-op meter)', () => {
    vi.useFakeTimers();
    metrics.disable();
    for (let i = 0; i < 3; i++) call('echo', i);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('records a full batch at once, and keeps values for the provider that was registered then', () => {
    vi.useFakeTimers();
    const first = recordingProvider();
    metrics.setGlobalMeterProvider(first.provider);
    for (let i = 0; i < 64; i++) call('echo', i);
    expect(first.recorded).toHaveLength(64);
    call('echo', 64);
    metrics.disable();
    const second = recordingProvider();
    metrics.setGlobalMeterProvider(second.provider);
    call('echo', 65);
    vi.advanceTimersByTime(50);
    expect(first.recorded.map(([seconds]) => seconds * 1000)).toEqual([...Array(65).keys()]);
    expect(second.recorded.map(([seconds]) => seconds * 1000)).toEqual([65]);
  });
});
