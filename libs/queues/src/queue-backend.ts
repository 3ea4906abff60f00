import { ConnectionOptions, createPostgresBackend, setDefaultBackendFactory } from 'bullmq';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { Client, ClientConfig } from 'pg';
import { ServiceConfig } from '@app/config';
import { connectRedis } from './redis-client';

/**
 * pg emits a dropped connection's error on the client, and with no listener Node throws: a client
 * BullMQ's PostgreSQL backend holds between two queries would take the process down when the
 * database restarts. This client always listens; the next query on it fails and BullMQ retries.
 */
class ListeningPgClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

let postgresBackendInstalled = false;

/** What a BullMQ worker needs of its Redis connection: commands wait for a reconnect. */
const WORKER_REDIS: RedisOptions = { maxRetriesPerRequest: null };

/**
 * BullMQ runs on Redis by default; with QUEUE_BACKEND=postgres (no Redis on the machine) it runs on
 * BullMQ's own PostgreSQL backend in the service's database. The factory is process-wide, so it is
 * installed once, before any queue or worker is built. On a Redis Cluster the answer is a client
 * (BullMQ takes a cluster only so) that its owner closes with `closeQueueConnection`.
 */
export function queueConnectionFor(
  config: ServiceConfig,
  redisOptions: RedisOptions = WORKER_REDIS,
): ConnectionOptions {
  if (config.queueBackend === 'postgres') {
    if (!postgresBackendInstalled) {
      setDefaultBackendFactory(createPostgresBackend);
      postgresBackendInstalled = true;
    }
    return {
      // Its workers LISTEN and take advisory locks: a direct connection, not a pooler's.
      connectionString: config.databaseDirectUrl,
      migrate: true,
      schema: postgresQueueSchema(config.queuePrefix),
      // Passed through to the backend's pg.Pool (its LISTEN client is apart, so even 1 serves).
      Client: ListeningPgClient,
      max: config.queueDatabasePoolSize,
    } as unknown as ConnectionOptions;
  }
  if (config.redisClusterNodes.length > 0) return connectRedis(config, redisOptions);
  return redisOptionsFromUrl(config.redisUrl, { ...redisOptions });
}

/** Closes a connection made by `queueConnectionFor` when it is a client (BullMQ leaves those open). */
export function closeQueueConnection(connection: ConnectionOptions): void {
  if (connection instanceof Redis || connection instanceof Cluster) connection.disconnect();
}

/**
 * BullMQ's PostgreSQL backend ignores the key prefix (a queue is its name within one schema), so
 * QUEUE_PREFIX picks the schema instead: two deployments (or test runs) sharing a database keep
 * their jobs apart as they would on one Redis. The default prefix keeps the schema `bullmq`.
 */
export function postgresQueueSchema(prefix: string): string {
  if (prefix === 'pesapal') return 'bullmq';
  return `bullmq_${prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}

export function redisOptionsFromUrl(
  url: string,
  extra: Record<string, unknown> = {},
): ConnectionOptions {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
    ...extra,
  };
}
