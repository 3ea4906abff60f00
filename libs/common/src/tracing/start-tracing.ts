import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { RedactingSpanExporter } from './redacting-exporter';

/**
 * OpenTelemetry tracing for one process, only when OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over
 * HTTP; the exporter reads the standard OTEL_* variables). HTTP (server and the gateway client),
 * pg, ioredis and Nest are instrumented by their OpenTelemetry packages. Must run before those
 * modules are loaded: each app's main.ts imports its tracing.ts first.
 */
export function startTracing(serviceName: string): NodeSDK | null {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    // The IPN path secret and status tokens reach span attributes through the request URL.
    traceExporter: new RedactingSpanExporter(new OTLPTraceExporter()),
    instrumentations: [
      new HttpInstrumentation({
        // Health probes and scrapes are not worth a trace each.
        ignoreIncomingRequestHook: (request) => /^\/(health|metrics)(\/|$)/.test(request.url ?? ''),
      }),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
      new NestInstrumentation(),
    ],
  });
  // Spans leave in batches (OTEL_BSP_SCHEDULE_DELAY, 5 s by default); the last batch of a
  // process that stops may be lost, which loses no payment.
  sdk.start();
  return sdk;
}
