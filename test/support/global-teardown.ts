import Redis from 'ioredis';
import { Client } from 'pg';
import { currentTestRun } from './test-servers';

/** Drops the run's database and deletes every Redis key under the run's prefix. */
export default async function globalTeardown(): Promise<void> {
  const run = currentTestRun();
  const admin = new Client({ connectionString: run.adminDatabaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${run.databaseName}" WITH (FORCE)`);
  await admin.end();

  if (run.queueBackend === 'redis') {
    const redis = new Redis(run.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${run.queuePrefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } catch {
      // Redis may be down after a fault test; nothing of this run survives a restart anyway.
    } finally {
      redis.disconnect();
    }
  }
  const embedded = (globalThis as { __embeddedPostgres?: { stop(): Promise<void> } })
    .__embeddedPostgres;
  if (embedded) await embedded.stop();
}
