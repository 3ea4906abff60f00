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
    expect(config.databaseConnectTimeoutMs).toBe(5000);
  });

  it('waits DATABASE_CONNECT_TIMEOUT_MS for a new connection, within its bounds', () => {
    expect(
      loadServiceConfig({ DATABASE_CONNECT_TIMEOUT_MS: '20000' }).databaseConnectTimeoutMs,
    ).toBe(20_000);
    expect(() => loadServiceConfig({ DATABASE_CONNECT_TIMEOUT_MS: '10' })).toThrow(
      /DATABASE_CONNECT_TIMEOUT_MS/,
    );
  });

  it('connects LISTEN and migrations straight to DATABASE_URL unless a direct URL is given', () => {
    const url = 'postgres://app@pooler:6432/shop';
    expect(loadServiceConfig({ DATABASE_URL: url }).databaseDirectUrl).toBe(url);
    const direct = 'postgres://app@db:5432/shop';
    const both = loadServiceConfig({ DATABASE_URL: url, DATABASE_DIRECT_URL: direct });
    expect(both.databaseDirectUrl).toBe(direct);
    expect(both.databasePreparedStatements).toBe(true);
    expect(
      loadServiceConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements,
    ).toBe(false);
  });

  it('reads Redis Cluster seed nodes as host:port or URLs, and only for the Redis queue backend', () => {
    expect(loadServiceConfig({}).redisClusterNodes).toEqual([]);
    const config = loadServiceConfig({
      REDIS_CLUSTER_NODES: '10.0.0.1:7000, rediss://app:secret@10.0.0.2:7001',
    });
    expect(config.redisClusterNodes).toEqual([
      'redis://10.0.0.1:7000',
      'rediss://app:secret@10.0.0.2:7001',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: '10.0.0.1' })).toEqual([
      'REDIS_CLUSTER_NODES must list host:port or redis://host:port nodes (got "10.0.0.1")',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'http://10.0.0.1:7000' })).toHaveLength(1);
    expect(problemsOf({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', QUEUE_BACKEND: 'postgres' })).toEqual(
      ['REDIS_CLUSTER_NODES needs QUEUE_BACKEND=redis'],
    );
  });

  it('reads CORS_ALLOWED_ORIGINS as origins, none by default, and names one that is not an origin', () => {
    expect(loadServiceConfig({}).corsAllowedOrigins).toEqual([]);
    expect(
      loadServiceConfig({ CORS_ALLOWED_ORIGINS: 'https://shop.example, http://localhost:5173' })
        .corsAllowedOrigins,
    ).toEqual(['https://shop.example', 'http://localhost:5173']);
    expect(problemsOf({ CORS_ALLOWED_ORIGINS: 'https://shop.example/cart' })).toEqual([
      'CORS_ALLOWED_ORIGINS: "https://shop.example/cart" is not an origin (scheme://host[:port], no path)',
    ]);
    for (const wrong of [
      'https://*.shop.example',
      'https://Shop.example',
      'https://shop.example?x',
      'https://user@shop.example',
      'https://shop.example:443',
      'ftp://shop.example',
    ]) {
      expect(problemsOf({ CORS_ALLOWED_ORIGINS: wrong })).toHaveLength(1);
    }
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
    expect(loadServiceConfig({}).notificationQueueDepth).toBe(60);
    expect(problemsOf({ NOTIFICATION_QUEUE_DEPTH: '0' })).toEqual([
      'NOTIFICATION_QUEUE_DEPTH must be an integer between 1 and 100000 (got "0")',
    ]);
  });

  it('retention: 30 days for notifications and merchant events, 1 for expired keys, 0 keeps for ever, bounded', () => {
    expect(loadServiceConfig({}).retention).toEqual({
      notificationsDays: 30,
      merchantEventsDays: 30,
      idempotencyKeysDays: 1,
      batchSize: 1000,
    });
    expect(
      loadServiceConfig({ RETENTION_NOTIFICATIONS_DAYS: '0' }).retention.notificationsDays,
    ).toBe(0);
    expect(
      problemsOf({ RETENTION_MERCHANT_EVENTS_DAYS: '3651', RETENTION_BATCH_SIZE: '5' }),
    ).toEqual([
      'RETENTION_MERCHANT_EVENTS_DAYS must be an integer between 0 and 3650 (got "3651")',
      'RETENTION_BATCH_SIZE must be an integer between 10 and 10000 (got "5")',
    ]);
  });

  it('holds an acknowledgement for company at most 50 ms (0: stored at once)', () => {
    expect(loadServiceConfig({}).ipnStoreGatherMs).toBe(2);
    expect(loadServiceConfig({ IPN_STORE_GATHER_MS: '0' }).ipnStoreGatherMs).toBe(0);
    expect(problemsOf({ IPN_STORE_GATHER_MS: '51' })).toEqual([
      'IPN_STORE_GATHER_MS must be an integer between 0 and 50 (got "51")',
    ]);
  });

  it('stores notifications in up to 8 statements at once by default, 1 to 64', () => {
    expect(loadServiceConfig({}).ipnStoreWriters).toBe(8);
    expect(loadServiceConfig({ IPN_STORE_WRITERS: '2' }).ipnStoreWriters).toBe(2);
    expect(problemsOf({ IPN_STORE_WRITERS: '0' })).toEqual([
      'IPN_STORE_WRITERS must be an integer between 1 and 64 (got "0")',
    ]);
  });

  describe('merchant webhooks', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

    it('retries over about three days, disables after five, and allows private URLs only outside production', () => {
      const config = loadServiceConfig({});
      expect(config.webhookRetryScheduleMs).toHaveLength(14);
      const total = config.webhookRetryScheduleMs.reduce((sum, gap) => sum + gap, 0);
      expect(total / 86_400_000).toBeGreaterThan(3);
      expect(total / 86_400_000).toBeLessThan(3.5);
      expect(config.webhookDisableAfterMs).toBe(5 * 86_400_000);
      expect(config.webhookTimeoutMs).toBe(15_000);
      expect(config.webhookAllowPrivate).toBe(true);
      const production = loadServiceConfig({
        NODE_ENV: 'production',
        SHOP_API_KEYS: 'shop',
        ADMIN_API_KEYS: 'admin',
        PUBLIC_BASE_URL: 'https://checkout.example',
        PESAPAL_CONSUMER_KEY: 'k',
        PESAPAL_CONSUMER_SECRET: 's',
        IPN_PATH_SECRET: 'ipn-path-secret',
        STATUS_TOKEN_SECRET: 'a-status-token-secret-of-32-chars!!',
        ADMIN_AUTH_SECRET: 'an-admin-auth-secret-of-32-chars!!',
      });
      expect(production.webhookAllowPrivate).toBe(false);
    });

    it('reads the schedule and the disable window as durations', () => {
      const config = loadServiceConfig({
        WEBHOOK_RETRY_SCHEDULE: '500ms, 5s,2m,1h,1d',
        WEBHOOK_DISABLE_AFTER: '36h',
      });
      expect(config.webhookRetryScheduleMs).toEqual([500, 5000, 120_000, 3_600_000, 86_400_000]);
      expect(config.webhookDisableAfterMs).toBe(36 * 3_600_000);
      expect(problemsOf({ WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toEqual([
        'WEBHOOK_RETRY_SCHEDULE must list durations such as 500ms, 5s, 30m, 2h, 5d (got "soon")',
      ]);
      expect(problemsOf({ WEBHOOK_DISABLE_AFTER: '5 days' })).toEqual([
        'WEBHOOK_DISABLE_AFTER must be a duration such as 500ms, 5s, 30m, 2h, 5d (got "5 days")',
      ]);
    });

    it('asks for Standard Webhooks secrets with ORDER_WEBHOOK_URL and names the replaced variables', () => {
      expect(
        loadServiceConfig({
          ORDER_WEBHOOK_URL: 'https://shop.example/h',
          ORDER_WEBHOOK_SECRET: secret,
        }).orderWebhookSecrets,
      ).toEqual([secret]);
      expect(problemsOf({ ORDER_WEBHOOK_URL: 'https://shop.example/h' })).toEqual([
        'ORDER_WEBHOOK_SECRET is required when ORDER_WEBHOOK_URL is set',
      ]);
      const [problem] = problemsOf({
        ORDER_WEBHOOK_URL: 'https://shop.example/h',
        ORDER_WEBHOOK_SECRET: `${secret},my-old-hex-secret`,
      });
      expect(problem).toMatch(
        /^ORDER_WEBHOOK_SECRET \(secret 2\) must start with whsec_; make one with: npm run -s webhook-secret$/,
      );
      expect(problemsOf({ ORDER_WEBHOOK_SECRET: 'whsec_c2hvcnQ=' })[0]).toMatch(
        /must encode 24 to 64 bytes \(got 5\)/,
      );
      expect(problemsOf({ MERCHANT_WEBHOOK_BACKOFF_MS: '2000' })).toEqual([
        'MERCHANT_WEBHOOK_BACKOFF_MS was replaced by WEBHOOK_RETRY_SCHEDULE and WEBHOOK_TIMEOUT_MS',
      ]);
    });
  });

  it('names the variable and the reason for a malformed value', () => {
    expect(problemsOf({ PORT: 'eighty' })).toEqual([
      'PORT must be an integer between 0 and 65535 (got "eighty")',
    ]);
    expect(problemsOf({ DATABASE_URL: 'mysql://x' })).toEqual([
      'DATABASE_URL must use postgres or postgresql (got "mysql:")',
    ]);
    expect(problemsOf({ DATABASE_DIRECT_URL: 'mysql://x' })).toEqual([
      'DATABASE_DIRECT_URL must use postgres or postgresql (got "mysql:")',
    ]);
    expect(problemsOf({ DATABASE_PREPARED_STATEMENTS: 'maybe' })).toHaveLength(1);
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
        'STATUS_TOKEN_SECRET is required',
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

  describe('operators', () => {
    it('reads the identity provider, the role map and the approval thresholds', () => {
      const config = loadServiceConfig({
        OIDC_ISSUER_URL: 'https://login.example.com/realms/pay',
        OIDC_CLIENT_ID: 'console',
        OIDC_CLIENT_SECRET: 'secret',
        OIDC_ROLE_MAP: 'payments-admins=admin, finance=refund_approver,finance=viewer',
        REFUND_APPROVAL_THRESHOLD: 'KES:50000,UGX:1500000.5',
      });
      expect(config.oidc).toMatchObject({
        issuerUrl: 'https://login.example.com/realms/pay',
        rolesClaim: 'groups',
        scopes: 'openid email profile',
      });
      expect([...(config.oidc?.roleMap ?? [])]).toEqual([
        ['payments-admins', ['admin']],
        ['finance', ['refund_approver', 'viewer']],
      ]);
      expect([...config.refundApprovalThresholds]).toEqual([
        ['KES', '50000.00'],
        ['UGX', '1500000.50'],
      ]);
      expect(loadServiceConfig({}).oidc).toBeNull();
    });

    it('refuses an unknown role, a half-configured provider and a malformed threshold, naming each', () => {
      expect(() =>
        loadServiceConfig({
          OIDC_ISSUER_URL: 'https://login.example.com',
          OIDC_ROLE_MAP: 'finance=refund_approvr',
          REFUND_APPROVAL_THRESHOLD: 'KES=50000',
        }),
      ).toThrow(
        expect.objectContaining({
          problems: expect.arrayContaining([
            expect.stringContaining('"refund_approvr" (for group "finance") is not a role'),
            'OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together',
            expect.stringContaining('REFUND_APPROVAL_THRESHOLD must list CURRENCY:amount'),
          ]),
        }),
      );
    });

    it('asks for ADMIN_AUTH_SECRET in production', () => {
      expect(() => loadServiceConfig({ NODE_ENV: 'production' })).toThrow(
        /ADMIN_AUTH_SECRET is required/,
      );
    });
  });

  describe('gateway accounts', () => {
    it('makes the single pair the account default, taking every currency', () => {
      const config = loadServiceConfig({ CURRENCIES: 'KES,UGX' });
      expect(config.gateway.accounts).toEqual([
        expect.objectContaining({ id: 'default', currencies: ['KES', 'UGX'] }),
      ]);
      expect([...config.gateway.accountForCurrency]).toEqual([
        ['KES', 'default'],
        ['UGX', 'default'],
      ]);
      expect(config.warnings).toEqual([]);
    });

    it('reads each account of PESAPAL_ACCOUNTS with its own pair, and says the single pair is unused', () => {
      const config = loadServiceConfig({
        CURRENCIES: 'KES,UGX,USD',
        PESAPAL_CONSUMER_KEY: 'single',
        PESAPAL_ACCOUNTS: 'ke:KES/USD, ug:UGX/USD',
        PESAPAL_CURRENCY_ACCOUNTS: 'USD:ug',
        PESAPAL_ACCOUNT_KE_CONSUMER_KEY: 'ke-key',
        PESAPAL_ACCOUNT_KE_CONSUMER_SECRET: 'ke-secret',
        PESAPAL_ACCOUNT_UG_CONSUMER_KEY: 'ug-key',
        PESAPAL_ACCOUNT_UG_CONSUMER_SECRET: 'ug-secret',
        PESAPAL_ACCOUNT_UG_BASE_URL: 'https://ug.example/api/',
      });
      expect(config.gateway.accounts).toEqual([
        expect.objectContaining({ id: 'ke', currencies: ['KES', 'USD'], consumerKey: 'ke-key' }),
        expect.objectContaining({
          id: 'ug',
          currencies: ['UGX', 'USD'],
          consumerSecret: 'ug-secret',
          baseUrl: 'https://ug.example/api',
        }),
      ]);
      expect([...config.gateway.accountForCurrency].sort()).toEqual([
        ['KES', 'ke'],
        ['UGX', 'ug'],
        ['USD', 'ug'],
      ]);
      expect(config.warnings).toEqual([expect.stringContaining('PESAPAL_CONSUMER_KEY')]);
    });

    it('names an account without its key or secret, and a currency two accounts take without a default', () => {
      expect(() =>
        loadServiceConfig({
          PESAPAL_ACCOUNTS: 'ke:KES/USD,ug:UGX/USD/EUR',
          PESAPAL_ACCOUNT_KE_CONSUMER_KEY: 'ke-key',
          PESAPAL_ACCOUNT_KE_CONSUMER_SECRET: 'ke-secret',
          PESAPAL_ACCOUNT_UG_CONSUMER_KEY: 'ug-key',
        }),
      ).toThrow(
        expect.objectContaining({
          problems: expect.arrayContaining([
            'PESAPAL_ACCOUNT_UG_CONSUMER_SECRET is required (account ug)',
            expect.stringContaining('USD is taken by accounts ke and ug'),
            expect.stringContaining('account ug takes EUR, not in CURRENCIES'),
          ]),
        }),
      );
    });

    it('does not ask for the single pair in production when accounts are listed', () => {
      const config = loadServiceConfig({
        NODE_ENV: 'production',
        SHOP_API_KEYS: 'shop',
        ADMIN_API_KEYS: 'admin',
        PUBLIC_BASE_URL: 'https://checkout.example',
        IPN_PATH_SECRET: 'ipn-path-secret',
        STATUS_TOKEN_SECRET: 'a-status-token-secret-of-32-chars!!',
        ADMIN_AUTH_SECRET: 'an-admin-auth-secret-of-32-chars!!',
        PESAPAL_ACCOUNTS: 'ke:KES',
        PESAPAL_ACCOUNT_KE_CONSUMER_KEY: 'ke-key',
        PESAPAL_ACCOUNT_KE_CONSUMER_SECRET: 'ke-secret',
      });
      expect(config.gateway.accounts.map((a) => a.id)).toEqual(['ke']);
      expect(config.warnings).toEqual([expect.stringContaining('takes UGX, TZS, USD')]);
    });

    it('says when account settings are set but PESAPAL_ACCOUNTS names none', () => {
      const config = loadServiceConfig({ PESAPAL_CURRENCY_ACCOUNTS: 'USD:ke' });
      expect(config.gateway.accounts.map((a) => a.id)).toEqual(['default']);
      expect(config.warnings).toEqual([expect.stringContaining('PESAPAL_CURRENCY_ACCOUNTS')]);
    });
  });
});
