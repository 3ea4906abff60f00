import { ConfigValidationError } from './env-parsers';
import { loadServiceConfig, SANDBOX_DEFAULTS } from './service-config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadServiceConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadServiceConfig', () => {
  it('points an unconfigured service at the sandbox gateway with its default credentials', () => {
    const config = loadServiceConfig({});
    expect(config.gateway.baseUrl).toBe(SANDBOX_DEFAULTS.baseUrl);
    expect(config.gateway.consumerKey).toBe(SANDBOX_DEFAULTS.consumerKey);
    expect(config.port).toBe(3000);
    expect(config.workerPort).toBe(3002);
    expect(config.workerNice).toBe(10);
    expect(config.databasePoolSize).toEqual({ api: 20, worker: 4 });
  });

  it('listens on loopback unless HOST says otherwise', () => {
    expect(loadServiceConfig({}).host).toBe('127.0.0.1');
    expect(loadServiceConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('keeps the worker priority within what nice allows', () => {
    expect(loadServiceConfig({ WORKER_NICE: '0' }).workerNice).toBe(0);
    expect(problemsOf({ WORKER_NICE: '20' })).toEqual([
      'WORKER_NICE must be an integer between 0 and 19 (got "20")',
    ]);
  });

  it('lets at least one verification job wait on the queue', () => {
    expect(loadServiceConfig({}).notificationQueueDepth).toBe(250);
    expect(problemsOf({ NOTIFICATION_QUEUE_DEPTH: '0' })).toEqual([
      'NOTIFICATION_QUEUE_DEPTH must be an integer between 1 and 100000 (got "0")',
    ]);
  });

  it('names the variable and the reason for a malformed value', () => {
    expect(problemsOf({ PORT: 'eighty' })).toEqual([
      'PORT must be an integer between 0 and 65535 (got "eighty")',
    ]);
    expect(problemsOf({ DATABASE_URL: 'mysql://x' })).toEqual([
      'DATABASE_URL must use postgres or postgresql (got "mysql:")',
    ]);
  });

  it('lists every bad variable at once', () => {
    const problems = problemsOf({ PORT: '-1', REDIS_URL: 'nope', QUEUE_BACKEND: 'kafka' });
    expect(problems).toHaveLength(3);
    expect(problems.join(' ')).toMatch(/PORT.*REDIS_URL.*QUEUE_BACKEND/);
  });

  it('requires real secrets and keys in production instead of the sandbox defaults', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems).toEqual(
      expect.arrayContaining([
        'PESAPAL_CONSUMER_KEY is required',
        'PESAPAL_CONSUMER_SECRET is required',
        'IPN_PATH_SECRET is required',
        'SHOP_API_KEYS is required in production',
        'ADMIN_API_KEYS is required in production',
        'PUBLIC_BASE_URL must use https in production',
      ]),
    );
  });

  it('splits comma-separated key lists and refuses a key that is both shop and admin', () => {
    expect(loadServiceConfig({ SHOP_API_KEYS: 'a, b,,c' }).shopApiKeys).toEqual(['a', 'b', 'c']);
    expect(problemsOf({ SHOP_API_KEYS: 'k1', ADMIN_API_KEYS: 'k1' })).toEqual([
      'SHOP_API_KEYS and ADMIN_API_KEYS must not share a key',
    ]);
  });
});
