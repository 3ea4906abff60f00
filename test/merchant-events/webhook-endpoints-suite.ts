import { WebhookHarness, newSecret } from './webhook-harness';
import { ReceivedWebhook, WebhookReceiver, startWebhookReceiver } from './webhook-receiver';

export interface Problem {
  field: string;
  reason: string;
}

export interface SentBody {
  type: string;
  timestamp: string;
  data: { endpoint?: { id?: string; url?: string }; order?: unknown; reason?: string };
}

export const bodyOf = (received: ReceivedWebhook) => JSON.parse(received.body) as SentBody;

/** Short retries so a test sees a schedule run; the real default spans about three days. */
const RETRY_SCHEDULE = Array.from({ length: 30 }, () => '200ms').join(',');

export interface WebhookEndpointsSuite {
  harness: WebhookHarness;
  /** ORDER_WEBHOOK_URL's secret. */
  environmentSecret: string;
  /** The receiver behind ORDER_WEBHOOK_URL (set once the file's beforeAll has run). */
  environmentReceiver(): WebhookReceiver;
  /** An endpoint with a receiver holding its secret; removed again by the test's end. */
  endpointWithReceiver(body?: Record<string, unknown>): Promise<{
    endpoint: Awaited<ReturnType<WebhookHarness['createEndpoint']>>;
    receiver: WebhookReceiver;
  }>;
}

/**
 * What each file of the webhook endpoint suites runs on, started before its tests and stopped
 * after them: a harness of its own (database, api, dispatcher; `suffix` names them) with
 * ORDER_WEBHOOK_URL pointing at a receiver, and the receivers its tests add.
 */
export function webhookEndpointsSuite(suffix: string): WebhookEndpointsSuite {
  const environmentSecret = newSecret();
  let environmentReceiver: WebhookReceiver | undefined;
  const receivers: WebhookReceiver[] = [];
  const harness = new WebhookHarness(suffix, {
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
    WEBHOOK_TIMEOUT_MS: '1000',
  });

  beforeAll(async () => {
    environmentReceiver = await startWebhookReceiver([environmentSecret]);
    Object.assign(process.env, {
      ORDER_WEBHOOK_URL: `${environmentReceiver.url}?token=kept-out-of-views`,
      ORDER_WEBHOOK_SECRET: environmentSecret,
    });
    await harness.start();
  }, 60_000);

  afterAll(async () => {
    await harness.stop();
    for (const started of [environmentReceiver, ...receivers]) await started?.close();
  });

  return {
    harness,
    environmentSecret,
    environmentReceiver: () => {
      if (!environmentReceiver) throw new Error('the suite has not started');
      return environmentReceiver;
    },
    async endpointWithReceiver(body = {}) {
      const got = await startWebhookReceiver();
      receivers.push(got);
      const endpoint = await harness.createEndpoint({ url: got.url, ...body });
      got.secrets.push(endpoint.secret);
      return { endpoint, receiver: got };
    },
  };
}
