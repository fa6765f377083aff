/**
 * Config `telemetry.otlp`: the host registers an OpenTelemetry SDK of its own, exporting spans
 * and the call-duration metric over OTLP/HTTP (JSON) to `endpoint` (`/v1/traces`, `/v1/metrics`).
 * Without it the spans and the metric stay no-ops, unless the embedding program registered an
 * SDK itself (the host never replaces one it finds). Loaded only when configured, so a host that
 * exports nothing loads none of the SDK.
 */
import { metrics, trace } from '@opentelemetry/api';

/** `telemetry.otlp`. */
export interface OtlpOptions {
  /** The collector's OTLP/HTTP base address, `http://127.0.0.1:4318`. */
  readonly endpoint: string;
  /** Headers sent with every export (a collector's API key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** `service.name` of the resource; default `toolhost`. */
  readonly serviceName?: string;
  /** How often the metric is exported, ms; default 60000. */
  readonly metricIntervalMs?: number;
}

/** What the host holds of the SDK it registered: flush and stop on close. */
export interface Telemetry {
  shutdown(): Promise<void>;
}

/** Registers the SDK for `options`; undefined when a tracer provider is registered already. */
export async function startOtlp(options: OtlpOptions): Promise<Telemetry | undefined> {
  const [
    { TracerProvider, BatchSpanProcessor },
    { MeterProvider, PeriodicExportingMetricReader },
    resources,
    traces,
    metricExport,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
  ]);
  const base = options.endpoint.replace(/\/$/, '');
  const headers = { ...options.headers };
  const resource = resources.resourceFromAttributes({ 'service.name': options.serviceName ?? 'toolhost' });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new traces.OTLPTraceExporter({ url: `${base}/v1/traces`, headers }),
      }),
    ],
  });
  if (!trace.setGlobalTracerProvider(tracerProvider)) {
    await tracerProvider.shutdown();
    return undefined;
  }
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new metricExport.OTLPMetricExporter({ url: `${base}/v1/metrics`, headers }),
        exportIntervalMillis: options.metricIntervalMs ?? 60_000,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    async shutdown() {
      // Flushes what is batched, then stops; the globals go with them.
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
    },
  };
}
