import {
  type Context,
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { VERSION } from '../../version.js';
import { parseTraceparent } from '../trace-context.js';
import type { EventSink, OtlpDestination, RequestEvent } from '../types.js';
import { errorType, spanAttributes, spanName } from './otlp-attributes.js';

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

/** The client's span from `params._meta.traceparent` as the parent context, or the root. */
function parentOf(event: RequestEvent): Context {
  const fields = event.traceContext;
  const parsed = fields === undefined ? undefined : parseTraceparent(fields.traceparent);
  if (fields === undefined || parsed === undefined) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parsed.traceId,
    spanId: parsed.spanId,
    traceFlags: parsed.flags,
    isRemote: true,
    ...(fields.tracestate === undefined ? {} : { traceState: createTraceState(fields.tracestate) }),
  });
}

/**
 * Exports events as OpenTelemetry spans over OTLP/HTTP (JSON), after the MCP semantic conventions: a SERVER span
 * per request named `{mcp.method.name} {target}`, child of the client's span when the request carried a
 * `traceparent`, status ERROR with `error.type` for JSON-RPC errors and tool errors. Every span is sampled (the
 * recorder already decided what to keep). The tracer provider is made at the first batch, when the server's name
 * and version (the `service.*` resource) are known.
 */
export class OtlpSink implements EventSink {
  readonly name = 'otlp';
  private readonly exporter: OTLPTraceExporter;
  private readonly collected = new Collected();
  private tracer: Tracer | undefined;

  constructor(
    private readonly destination: OtlpDestination,
    uploadTimeout: number,
  ) {
    this.exporter = new OTLPTraceExporter({
      url: destination.url,
      headers: destination.headers ?? {},
      timeoutMillis: uploadTimeout,
    });
  }

  async write(events: readonly RequestEvent[]): Promise<void> {
    const tracer = this.tracerFor(events[0]);
    const content = this.destination.content ?? 'none';
    for (const event of events) {
      const start = Date.parse(event.startedAt);
      const span = tracer.startSpan(
        spanName(event),
        { kind: SpanKind.SERVER, startTime: start, attributes: spanAttributes(event, content) },
        parentOf(event),
      );
      const error = errorType(event);
      if (error !== undefined) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          ...(event.error === undefined ? {} : { message: event.error.message }),
        });
      }
      span.end(start + event.durationMs);
    }
    const spans = this.collected.spans;
    this.collected.spans = [];
    await new Promise<void>((resolve, reject) => {
      this.exporter.export(spans, (result) => {
        if (result.code === 0) resolve();
        else reject(result.error ?? new Error('OTLP export failed'));
      });
    });
  }

  private tracerFor(first: RequestEvent | undefined): Tracer {
    if (this.tracer !== undefined) return this.tracer;
    const version = first?.release ?? first?.server?.version;
    const resource = resourceFromAttributes({
      [ATTR_SERVICE_NAME]: this.destination.serviceName ?? first?.server?.name ?? 'mcp-server',
      ...(version === undefined ? {} : { [ATTR_SERVICE_VERSION]: version }),
    });
    const provider = new BasicTracerProvider({
      resource,
      sampler: new AlwaysOnSampler(),
      spanProcessors: [this.collected],
    });
    this.tracer = provider.getTracer('tapedeck-instrument', VERSION);
    return this.tracer;
  }
}
