import { trace } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { parentOf, traceContextOf, traceIdOf } from '../../../src/core/dispatch/telemetry.js';

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
