import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { continueTrace, currentTraceParent, inSpan, markInTrace } from './trace-context';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${PARENT_TRACE}-00f067aa0ba902b7-01`;

describe('trace context', () => {
  describe('without a started SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
    it('runs the work with a span that records nothing, and answers its result', async () => {
      const seen: boolean[] = [];
      await expect(
        inSpan('apply outcome', async (span) => {
          seen.push(span.isRecording());
          return 'applied';
        }),
      ).resolves.toBe('applied');
      await expect(
        continueTrace(PARENT, 'verify notification', async (span) => {
          seen.push(span.isRecording());
          return 'verified';
        }),
      ).resolves.toBe('verified');
      expect(seen).toEqual([false, false]);
    });

    it("passes the work's failure on as it is", async () => {
      const failure = new Error('lookup failed');
      await expect(
        inSpan('apply outcome', async () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
      await expect(
        continueTrace(null, 'verify notification', async () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
    });

    it('carries no trace of its own, and hands on the one it was given', () => {
      expect(currentTraceParent()).toBeNull();
      expect(markInTrace(PARENT, 'stored')).toBe(PARENT);
      expect(markInTrace(null, 'stored')).toBeNull();
    });
  });

  describe('with a started SDK', () => {
    const exporter = new tracing.InMemorySpanExporter();
    let sdk: NodeSDK;

    beforeAll(() => {
      sdk = new NodeSDK({
        serviceName: 'trace-context-spec',
        spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
        instrumentations: [],
      });
      sdk.start();
    });
    afterAll(() => sdk.shutdown());

    it('records a span for the work, continuing the trace it was given', async () => {
      let inside: string | null = null;
      await continueTrace(PARENT, 'verify notification', async (span) => {
        expect(span.isRecording()).toBe(true);
        await inSpan('apply outcome', async () => {
          inside = currentTraceParent();
        });
      });
      const spans = exporter.getFinishedSpans();
      expect(spans.map((span) => span.name)).toEqual(['apply outcome', 'verify notification']);
      expect(spans.every((span) => span.spanContext().traceId === PARENT_TRACE)).toBe(true);
      expect(inside).toMatch(new RegExp(`^00-${PARENT_TRACE}-[0-9a-f]{16}-01$`));
    });

    it('records a failed work as an error span', async () => {
      exporter.reset();
      await expect(
        inSpan('apply outcome', async () => {
          throw new Error('lookup failed');
        }),
      ).rejects.toThrow('lookup failed');
      const [span] = exporter.getFinishedSpans();
      expect(span.status).toMatchObject({ code: 2, message: 'lookup failed' });
    });
  });
});
