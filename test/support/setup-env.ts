import { currentTestRun } from './test-servers';

// Every suite talks to this run's own database and queue prefix, quietly.
const run = currentTestRun();
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.DATABASE_URL = run.databaseUrl;
process.env.REDIS_URL = run.redisUrl;
process.env.QUEUE_BACKEND = run.queueBackend;
process.env.QUEUE_PREFIX = run.queuePrefix;
