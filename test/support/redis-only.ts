import { currentTestRun } from './test-servers';

/** Whether this run's queues, tokens and reservations are on Redis (else on PostgreSQL). */
export const runHasRedis = (): boolean => currentTestRun().queueBackend === 'redis';

/**
 * A test about Redis itself (its outage, its keys): it runs when this run has Redis and is
 * otherwise skipped, with the reason in the name jest prints. Nothing else may skip.
 */
export function itWithRedis(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (runHasRedis()) {
    it(name, fn, timeout);
  } else {
    it.skip(`${name} [skipped: about Redis itself, and this run has no Redis]`, fn);
  }
}
