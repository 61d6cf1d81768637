import type { Context, Tracer } from '@opentelemetry/api';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { VERSION } from '../../base/version.js';
import { parseTraceparent } from '../trace-context.js';
import type { EventSink, OtlpDestination, RequestEvent } from '../types.js';
import { errorType, spanAttributes, spanName } from './otlp-attributes.js';

/** The OpenTelemetry modules, loaded at the first batch: a server that never exports spans never loads them. */
async function loadOtel() {
  const [api, exporter, base, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
  ]);
  return { api, exporter, base, resources };
}

type Otel = Awaited<ReturnType<typeof loadOtel>>;

/** Keeps ended spans until the sink exports them: the recorder does the batching, not the SDK. */
class Collected implements SpanProcessor {
  spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Exports events as OpenTelemetry spans over OTLP/HTTP (JSON), after the MCP semantic conventions: a SERVER span
 * per request named `{mcp.method.name} {target}`, child of the client's span when the request carried a
 * `traceparent`, status ERROR with `error.type` for JSON-RPC errors and tool errors. Every span is sampled (the
 * recorder already decided what to keep). The tracer provider is made at the first batch, when the server's name
 * and version (the `service.*` resource) are known; it is never registered globally, so a server's own
 * OpenTelemetry setup is left alone.
 */
export class OtlpSink implements EventSink {
  readonly name = 'otlp';
  private readonly collected = new Collected();
  private setup: Promise<{ otel: Otel; tracer: Tracer; exporter: OTLPTraceExporter }> | undefined;

  constructor(
    private readonly destination: OtlpDestination,
    private readonly uploadTimeout: number,
  ) {}

  async write(events: readonly RequestEvent[]): Promise<void> {
    const first = events[0];
    if (first === undefined) return;
    this.setup ??= this.start(first);
    const { otel, tracer, exporter } = await this.setup;
    const content = this.destination.content ?? 'none';
    for (const event of events) {
      const start = Date.parse(event.startedAt);
      const span = tracer.startSpan(
        spanName(event),
        { kind: otel.api.SpanKind.SERVER, startTime: start, attributes: spanAttributes(event, content) },
        this.parentOf(otel, event),
      );
      if (errorType(event) !== undefined) {
        span.setStatus({
          code: otel.api.SpanStatusCode.ERROR,
          ...(event.error === undefined ? {} : { message: event.error.message }),
        });
      }
      span.end(start + event.durationMs);
    }
    const spans = this.collected.spans;
    this.collected.spans = [];
    await new Promise<void>((resolve, reject) => {
      exporter.export(spans, (result) => {
        if (result.code === 0) resolve();
        else reject(result.error ?? new Error('OTLP export failed'));
      });
    });
  }

  private async start(first: RequestEvent) {
    const otel = await loadOtel();
    const exporter = new otel.exporter.OTLPTraceExporter({
      url: this.destination.url,
      headers: this.destination.headers ?? {},
      timeoutMillis: this.uploadTimeout,
    });
    const version = first.release ?? first.server?.version;
    const resource = otel.resources.resourceFromAttributes({
      'service.name': this.destination.serviceName ?? first.server?.name ?? 'mcp-server',
      ...(version === undefined ? {} : { 'service.version': version }),
    });
    const provider = new otel.base.BasicTracerProvider({
      resource,
      sampler: new otel.base.AlwaysOnSampler(),
      spanProcessors: [this.collected],
    });
    return { otel, exporter, tracer: provider.getTracer('tapedeck-instrument', VERSION) };
  }

  /** The client's span from `params._meta.traceparent` as the parent context, or the root. */
  private parentOf(otel: Otel, event: RequestEvent): Context {
    const fields = event.traceContext;
    const parsed = fields === undefined ? undefined : parseTraceparent(fields.traceparent);
    const { ROOT_CONTEXT, trace, createTraceState } = otel.api;
    if (fields === undefined || parsed === undefined) return ROOT_CONTEXT;
    return trace.setSpanContext(ROOT_CONTEXT, {
      traceId: parsed.traceId,
      spanId: parsed.spanId,
      traceFlags: parsed.flags,
      isRemote: true,
      ...(fields.tracestate === undefined ? {} : { traceState: createTraceState(fields.tracestate) }),
    });
  }
}
