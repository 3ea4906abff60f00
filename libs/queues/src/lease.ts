import { ServiceConfig } from '@app/config';

/**
 * How long a relay's or sweep's claim on a Postgres row lasts. It outlives a job's lock, so work
 * claimed and queued is not claimed again while its job may still be running.
 */
export function claimLeaseSeconds(config: ServiceConfig): number {
  return Math.max(60, (config.jobLockMs / 1000) * 2);
}
