import type { Job } from 'bullmq';
import { jobOptions, VerifyNotificationData } from './job-catalogue';
import { releaseDeduplication } from './job-runner';

/**
 * A worker killed mid-job leaves the job stalled; after too many stalls it fails. Two things keep
 * its notification from being stuck for ever: the relay queues a row anew under a new job id on
 * each claim, and a job that failed for good gives up its de-duplication key.
 */
describe('jobs of a worker that died', () => {
  const notification = { notificationId: 'n-1', orderKey: 'order-1', attempt: 0 };

  it('gives each relay claim of a notification its own job id, one id per claim', () => {
    const batch = (...notifications: VerifyNotificationData[]) =>
      jobOptions('verify-notifications', { notifications });
    const first = batch({ ...notification, claim: 1000 });
    const again = batch({ ...notification, claim: 1000 });
    const next = batch({ ...notification, claim: 61_000 });
    expect(first.jobId).toBe(again.jobId);
    expect(next.jobId).not.toBe(first.jobId);
    // A batch of several is named by its first row and the claim, apart from that row's own job
    // (its split-off retry).
    const other = { ...notification, notificationId: 'n-2', claim: 1000 };
    expect(batch({ ...notification, claim: 1000 }, other).jobId).toBe('notifications-n-1-0-1000-2');
    expect(batch({ ...notification, claim: 1000 }, other).jobId).not.toBe(first.jobId);
    // An admin's replay names no claim: the id it has always had.
    expect(batch(notification).jobId).toBe('notification-n-1-0');
    // The previous release's job of one notification: the same ids.
    expect(jobOptions('verify-notification', { ...notification, claim: 1000 }).jobId).toBe(
      first.jobId,
    );
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
