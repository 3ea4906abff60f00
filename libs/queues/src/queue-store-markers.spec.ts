import { ServiceConfig } from '@app/config';
import { QUEUE_NAMES } from './job-catalogue';
import { RedisQueueStoreMarkers } from './queue-store-markers';
import { queueKeyPrefix, RedisClient } from './redis-client';

/** The hash tag of a Redis Cluster key: the part between the first { and the next }. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('the mark a queue store keeps', () => {
  const single = { queuePrefix: 'pesapal', redisClusterNodes: [] } as unknown as ServiceConfig;
  const cluster = {
    queuePrefix: 'pesapal',
    redisClusterNodes: ['redis://10.0.0.1:7000'],
  } as unknown as ServiceConfig;
  const markers = (config: ServiceConfig) =>
    new RedisQueueStoreMarkers(null as unknown as RedisClient, config);

  it("lives beside the queue's own keys, under the deployment's prefix", () => {
    expect(markers(single).keyOf('notifications')).toBe(
      'pesapal:notifications:checkout:store-mark',
    );
  });

  it("shares the queue's hash slot on a cluster, so it is lost with the queue's master", () => {
    for (const queue of QUEUE_NAMES) {
      const key = markers(cluster).keyOf(queue);
      // BullMQ's keys of the queue: `<prefix>:<queue>:<suffix>`, the prefix carrying the tag.
      expect(hashTag(key)).toBe(hashTag(`${queueKeyPrefix(cluster, queue)}:${queue}:wait`));
    }
    const tags = QUEUE_NAMES.map((queue) => hashTag(markers(cluster).keyOf(queue)));
    expect(new Set(tags).size).toBe(QUEUE_NAMES.length);
  });

  it('can be no job of the queue (job ids never hold a colon)', () => {
    const suffix = markers(single).keyOf('order-sync').slice('pesapal:order-sync:'.length);
    expect(suffix).toContain(':');
  });
});
