import { join } from 'node:path';
import { currentTestRun, TEST_CONNECT_TIMEOUT_MS } from './test-servers';

// Every suite talks to this run's own database and queue prefix, quietly.
const run = currentTestRun();
process.env.NODE_ENV = 'test';
if (process.env.TEST_LOG_LEVEL) {
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL;
} else {
  // Every line at debug level, into a file per jest worker that the secret audit reads at the end
  // (child processes inherit it and append to the same file).
  process.env.LOG_LEVEL = 'debug';
  process.env.LOG_FILE = join(run.auditDir, `logs-${process.pid}.ndjson`);
}
process.env.DATABASE_URL = run.databaseUrl;
// Two test passes share two cores: a connection may take longer than in production to be made.
process.env.DATABASE_CONNECT_TIMEOUT_MS = String(TEST_CONNECT_TIMEOUT_MS);
process.env.REDIS_URL = run.redisUrl;
process.env.QUEUE_BACKEND = run.queueBackend;
process.env.QUEUE_PREFIX = run.queuePrefix;
// Straight to the server, named statements on: a suite behind a pooler sets its own.
delete process.env.DATABASE_DIRECT_URL;
delete process.env.DATABASE_PREPARED_STATEMENTS;
