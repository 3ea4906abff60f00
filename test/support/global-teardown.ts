import './register-paths';
import { rmSync } from 'node:fs';
import Redis from 'ioredis';
import { Client } from 'pg';
import { scanLogs } from './secret-audit';
import { currentTestRun } from './test-servers';

/**
 * Drops the run's database and deletes every Redis key under the run's prefix, then fails the run
 * if any process logged a secret (test/support/secret-audit.ts).
 */
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

  const { lines, findings } = scanLogs(run.auditDir);
  if (findings.length > 0) {
    throw new Error(
      `secret audit: ${findings.length} of ${lines} log lines carry a secret (files kept in ${run.auditDir}):\n${findings.slice(0, 20).join('\n')}`,
    );
  }
  process.stdout.write(`secret audit: ${lines} log lines and every response checked, no secret\n`);
  rmSync(run.auditDir, { recursive: true, force: true });
}
