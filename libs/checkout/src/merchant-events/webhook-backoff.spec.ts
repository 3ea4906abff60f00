import { MinimalJob } from 'bullmq';
import { jobOptions } from '@app/queues';
import { MAX_WEBHOOK_RETRY_GAP_MS, merchantWebhookBackoff } from './webhook-backoff';

const jobWithBase = (delay?: number) =>
  ({ opts: { backoff: { type: 'merchant-webhook', delay } } }) as unknown as MinimalJob;

describe('merchant webhook backoff', () => {
  it('doubles from the base delay the job carries', () => {
    const gaps = [1, 2, 3, 4].map((n) =>
      merchantWebhookBackoff(n, 'merchant-webhook', undefined, jobWithBase(2000)),
    );
    expect(gaps).toEqual([2000, 4000, 8000, 16000]);
    expect(merchantWebhookBackoff(3, 'merchant-webhook', undefined, jobWithBase(100))).toBe(400);
  });

  it('falls back to 2 s without a base and never waits more than an hour', () => {
    expect(merchantWebhookBackoff(1, 'merchant-webhook', undefined, jobWithBase())).toBe(2000);
    expect(merchantWebhookBackoff(12, 'merchant-webhook', undefined, jobWithBase(2000))).toBe(
      MAX_WEBHOOK_RETRY_GAP_MS,
    );
    expect(merchantWebhookBackoff(500, 'merchant-webhook', undefined, jobWithBase(2000))).toBe(
      MAX_WEBHOOK_RETRY_GAP_MS,
    );
  });

  it("spreads the catalogue's attempts over a full day", () => {
    const attempts =
      jobOptions('deliver-event', { eventId: 'e' }, { merchantWebhookBackoffMs: 2000 }).attempts ??
      0;
    let total = 0;
    for (let failed = 1; failed < attempts; failed += 1) {
      total += merchantWebhookBackoff(failed, 'merchant-webhook', undefined, jobWithBase(2000));
    }
    expect(total / 3_600_000).toBeGreaterThanOrEqual(24);
    expect(total / 3_600_000).toBeLessThan(26);
  });
});
