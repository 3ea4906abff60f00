import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/*
 * Tracing through @opentelemetry/api only: without a started SDK (OTEL_EXPORTER_OTLP_ENDPOINT
 * unset) every span is a no-op, and the work runs without one (no span, context or wrapping
 * promise per job or outcome).
 */
const TRACER_NAME = 'pesapal-checkout';
const tracer = () => trace.getTracer(TRACER_NAME);

/** The span the work gets when nothing is traced: records nothing, as the API's no-op would. */
const UNTRACED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Whether an SDK has registered a tracer provider (the API's global is a proxy until then). */
function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return (
    !(provider instanceof ProxyTracerProvider) ||
    provider.getDelegateTracer(TRACER_NAME) !== undefined
  );
}

/** The active trace as a W3C traceparent, to carry it across a process (inbox row, job data). */
export function currentTraceParent(): string | null {
  if (!tracing()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The trace id of the active span, for log lines; undefined when nothing is traced. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/** Runs `work` in a span `name`, a child of the active span (if any). */
export function inSpan<T>(name: string, work: (span: Span) => Promise<T>): Promise<T> {
  if (!tracing()) return work(UNTRACED);
  return tracer().startActiveSpan(name, (span) => finish(span, work));
}

/**
 * Runs `work` in a span `name` that continues the trace named by `traceParent` (written by another
 * process), or starts a trace of its own when there is none.
 */
export function continueTrace<T>(
  traceParent: string | null | undefined,
  name: string,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracing()) return work(UNTRACED);
  const parent = traceParent
    ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent })
    : context.active();
  return context.with(parent, () => inSpan(name, work));
}

/** A span ended at once under the given trace; answers the traceparent of that span. */
export function markInTrace(traceParent: string | null | undefined, name: string): string | null {
  if (!traceParent || !tracing()) return traceParent ?? null;
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
  const span = tracer().startSpan(name, undefined, parent);
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  span.end();
  return carrier.traceparent ?? traceParent;
}

async function finish<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
