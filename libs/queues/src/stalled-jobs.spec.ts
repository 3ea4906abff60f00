import type { Job } from 'bullmq';
import { jobOptions } from './job-catalogue';
import { releaseDeduplication } from './job-runner';

/**
 * A worker killed mid-job leaves the job stalled; after too many stalls it fails. Two things keep
 * its notification from being stuck for ever: the relay queues a row anew under a new job id on
 * each claim, and a job that failed for good gives up its de-duplication key.
 */
describe('jobs of a worker that died', () => {
  const notification = { notificationId: 'n-1', orderKey: 'order-1', attempt: 0 };

  it('gives each relay claim of a notification its own job id, one id per claim', () => {
    const first = jobOptions('verify-notification', { ...notification, claim: 1000 });
    const again = jobOptions('verify-notification', { ...notification, claim: 1000 });
    const next = jobOptions('verify-notification', { ...notification, claim: 61_000 });
    expect(first.jobId).toBe(again.jobId);
    expect(next.jobId).not.toBe(first.jobId);
    // The order key still de-duplicates them while one is queued or running.
    expect(next.deduplication?.id).toBe(first.deduplication?.id);
    // An admin's replay names no claim: the id it has always had.
    expect(jobOptions('verify-notification', notification).jobId).toBe('notification-n-1-0');
  });

  function job(failed: boolean, deduplicated = true) {
    const removeDeduplicationKey = jest.fn(async () => true);
    const fake = {
      id: 'job-1',
      opts: deduplicated ? { deduplication: { id: 'verify-order-order-1' } } : {},
      isFailed: async () => failed,
      removeDeduplicationKey,
    } as unknown as Job;
    return { fake, removeDeduplicationKey };
  }
  const logger = { warn: jest.fn() };

  it('releases the de-duplication key of a job that failed for good', async () => {
    const { fake, removeDeduplicationKey } = job(true);
    await releaseDeduplication(fake, logger);
    expect(removeDeduplicationKey).toHaveBeenCalledTimes(1);
  });

  it('keeps the key of a job that will be retried, and ignores jobs without one', async () => {
    const retried = job(false);
    await releaseDeduplication(retried.fake, logger);
    expect(retried.removeDeduplicationKey).not.toHaveBeenCalled();
    const plain = job(true, false);
    await releaseDeduplication(plain.fake, logger);
    expect(plain.removeDeduplicationKey).not.toHaveBeenCalled();
  });

  it('logs, and does not throw, when the queue cannot be reached', async () => {
    const { fake } = job(true);
    (fake as unknown as { isFailed: () => Promise<boolean> }).isFailed = async () => {
      throw new Error('connection closed');
    };
    await expect(releaseDeduplication(fake, logger)).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('connection closed'));
  });
});
