import type { tracing } from '@opentelemetry/sdk-node';

/**
 * Secrets that instrumentations copy into span attributes from the request URL: the IPN route's
 * path segment (url.path, url.full) and a customer's status_token in a query string.
 */
export function redactSecretsInText(text: string): string {
  return text
    .replace(/\/v1\/ipn\/[^/?#\s"]+/g, '/v1/ipn/[redacted]')
    .replace(/([?&]status_token=)[^&#\s"]*/g, '$1[redacted]');
}

/**
 * Wraps the trace exporter: every string attribute of every span leaves redacted, whichever
 * instrumentation set it (the HTTP server span's url.path, Nest's url.full, …).
 */
export class RedactingSpanExporter implements tracing.SpanExporter {
  constructor(private readonly inner: tracing.SpanExporter) {}

  export(
    spans: tracing.ReadableSpan[],
    resultCallback: Parameters<tracing.SpanExporter['export']>[1],
  ): void {
    for (const span of spans) {
      // An ended span's attributes are a plain object; it is not read again after export.
      const attributes = span.attributes as Record<string, unknown>;
      for (const [key, value] of Object.entries(attributes)) {
        if (typeof value === 'string') attributes[key] = redactSecretsInText(value);
      }
    }
    this.inner.export(spans, resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
