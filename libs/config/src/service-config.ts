import {
  DEFAULT_POLL_SCHEDULE_SECONDS,
  isRole,
  Money,
  Role,
  ROLES,
  webhookSigningKey,
} from '@app/domain';
import { ConfigValidationError, Env, EnvReader, VariableRead } from './env-parsers';

const ROLE_NAMES = ROLES.join(', ');

/** Defaults that make a bare `npm start` talk to the built-in sandbox gateway. */
export const SANDBOX_DEFAULTS = {
  port: 3001,
  baseUrl: 'http://127.0.0.1:3001/pesapalv3/api',
  consumerKey: 'sandbox-consumer-key',
  consumerSecret: 'sandbox-consumer-secret',
} as const;

export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** The ID token or userinfo claim that lists the person's groups. */
  rolesClaim: string;
  /** Provider group → the roles it gives. */
  roleMap: Map<string, Role[]>;
  scopes: string;
}

/** A Pesapal merchant account: its own credentials, token, IPN registration and currencies. */
export interface GatewayAccount {
  /** `default` for the single pair (PESAPAL_CONSUMER_KEY), else an id from PESAPAL_ACCOUNTS. */
  id: string;
  currencies: string[];
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

export const DEFAULT_ACCOUNT = 'default';
/** An account id as PESAPAL_ACCOUNTS names it (and the variables, the IPN URL and labels carry). */
export const ACCOUNT_ID_PATTERN = /^[a-z][a-z0-9_]{0,19}$/;

export type QueueBackend = 'redis' | 'postgres';
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** How the service and the sandbox log (LOG_LEVEL, LOG_FILE, LOG_FORMAT). */
export interface LoggingConfig {
  logLevel: string;
  /** Log lines go to this file (appended) instead of stdout (LOG_FILE). */
  logFile: string | null;
  /** `json` (a line per record, for collectors) or `pretty` (for a person at a terminal). */
  logFormat: LogFormat;
}

export function readLogging(r: EnvReader): LoggingConfig {
  return {
    logLevel: r.oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
    logFile: r.optionalString('LOG_FILE') ?? null,
    logFormat: r.oneOf<LogFormat>('LOG_FORMAT', LOG_FORMATS, 'json'),
  };
}
export type NodeEnvironment = 'development' | 'test' | 'production';

export interface ServiceConfig extends LoggingConfig {
  nodeEnv: NodeEnvironment;
  /** The interface the api and the worker's health port listen on (loopback unless HOST says). */
  host: string;
  port: number;
  workerPort: number;
  /** The worker's CPU priority (nice, 0–19): acknowledging notifications is the api's race, not its. */
  workerNice: number;
  /** Connections each process keeps to PostgreSQL: the api's, and the worker's (kept small). */
  databasePoolSize: { api: number; worker: number };
  /** How long a new PostgreSQL connection may take before a call answers 503. */
  databaseConnectTimeoutMs: number;
  /** GET /metrics on the api and the worker's health port (METRICS_ENABLED). */
  metricsEnabled: boolean;
  /** When set, /metrics asks for this bearer token (METRICS_TOKEN, a secret). */
  metricsToken: string | null;
  databaseUrl: string;
  /**
   * A connection straight to PostgreSQL, not through a pooler in transaction mode (which keeps
   * neither LISTEN nor session advisory locks): the inbox relay's LISTEN, the migration lock and
   * BullMQ's PostgreSQL backend use it (DATABASE_DIRECT_URL, default DATABASE_URL).
   */
  databaseDirectUrl: string;
  /**
   * Named prepared statements on DATABASE_URL's connections (DATABASE_PREPARED_STATEMENTS). Off
   * for a pooler in transaction mode that cannot keep them (PgBouncer before 1.21, or without
   * max_prepared_statements): the same statements are then sent unnamed.
   */
  databasePreparedStatements: boolean;
  redisUrl: string;
  /**
   * Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES, `host:port` or `redis[s]://…` each):
   * when set, queues, tokens, reservations and rate windows use the cluster instead of REDIS_URL.
   */
  redisClusterNodes: string[];
  queueBackend: QueueBackend;
  /** On the PostgreSQL queue backend: connections each of BullMQ's queues and workers may open. */
  queueDatabasePoolSize: number;
  queuePrefix: string;
  runMigrationsOnStart: boolean;
  gateway: {
    baseUrl: string;
    consumerKey: string;
    consumerSecret: string;
    timeoutMs: number;
    mobileMoneyNetworks: string[];
    /**
     * The merchant accounts (PESAPAL_ACCOUNTS); without it, one account `default` with the
     * single pair above, taking every currency.
     */
    accounts: GatewayAccount[];
    /** Which account a checkout in each currency goes to, unless it names one. */
    accountForCurrency: Map<string, string>;
  };
  /** Lines to log once at start (a setting that is read but has no effect). */
  warnings: string[];
  publicBaseUrl: string;
  ipnPathSecret: string;
  /**
   * Signs the per-order status tokens a customer's browser presents to follow its order's live
   * status (STATUS_TOKEN_SECRET): changing it invalidates the tokens already given out.
   */
  statusTokenSecret: string;
  /** Refund the second payment of a double payment at once, without an admin (the worker). */
  autoRefundDoublePayments: boolean;
  /** How often an api replica with live-status subscribers looks for their orders' changes. */
  orderStreamPollMs: number;
  /** A comment line this often keeps an idle live-status stream (and its proxies) open. */
  orderStreamHeartbeatMs: number;
  ipnNotificationMethod: 'GET' | 'POST';
  currencies: string[];
  /** The zone finance's exports and daily reports read dates in, unless a request names one. */
  reportTimeZone: string;
  shopApiKeys: string[];
  /** Origins whose pages may read the api's answers (CORS); none unless listed. */
  corsAllowedOrigins: string[];
  adminApiKeys: string[];
  /**
   * Keys the hash under which scoped API keys are stored and signs the sign-in's cookie
   * (ADMIN_AUTH_SECRET): changing it invalidates every scoped key.
   */
  adminAuthSecret: string;
  /** Sign-in with the company's identity provider (OpenID Connect); null when not configured. */
  oidc: OidcConfig | null;
  /** A console session ends after this long without a request. */
  adminSessionIdleMinutes: number;
  /** …and this long after sign-in, however active. */
  adminSessionMaxHours: number;
  /** Refunds above these amounts (per currency, exact decimals) wait for a second person. */
  refundApprovalThresholds: Map<string, string>;
  defaultReturnUrl: string | undefined;
  pollHorizonHours: number;
  /** How long a payment started on a payment link's page holds its use (links that take a limited number). */
  paymentLinkHoldMinutes: number;
  /** Gaps between lookups of a silent order; the last one repeats until the horizon. */
  pollScheduleSeconds: number[];
  /** How often the worker sweeps Postgres for due polls, unqueued notifications and outbox rows. */
  sweepIntervalMs: number;
  /** Overall cap on gateway lookups started by the workers (BullMQ limiter, all processes). */
  lookupsPerSecond: number;
  /** Per order, a second lookup waits this long after the first: a burst of notifications costs two. */
  orderLookupIntervalMs: number;
  /** First wait before a notification naming no known order is tried again (doubles each time). */
  unmatchedRetryMs: number;
  /** Verification jobs the inbox relay lets wait on the queue; a longer backlog waits in Postgres. */
  notificationQueueDepth: number;
  /** The api waits this long for more notifications to store with one (one commit for all). */
  ipnStoreGatherMs: number;
  /** Statements storing notifications the api has under way at once, each with its own commit. */
  ipnStoreWriters: number;
  /** BullMQ job lock: a job held by a worker that died is picked up again after this long. */
  jobLockMs: number;
  /** The bootstrap webhook endpoint (ORDER_WEBHOOK_URL), kept beside those admins create. */
  orderWebhookUrl: string | undefined;
  /** Its `whsec_` secrets, the newest first: it is signed with each (a rotation's overlap). */
  orderWebhookSecrets: string[];
  /** Gaps between a message's attempts (jittered); after the last one it is given up. */
  webhookRetryScheduleMs: number[];
  /** An endpoint failing for this long without one delivery is disabled. */
  webhookDisableAfterMs: number;
  /** How long one webhook POST may take before it counts as failed. */
  webhookTimeoutMs: number;
  /** Lets endpoints be plain http and on loopback/private addresses (off in production). */
  webhookAllowPrivate: boolean;
  /**
   * How long the operational records that are not the merchant's record are kept, in days (0:
   * for ever): settled notifications (applied or ignored), merchant events handed to every
   * endpoint with their messages and delivery attempts, and expired idempotency keys. Orders,
   * attempts, refunds, timelines, charges and reports are never removed.
   */
  retention: {
    notificationsDays: number;
    merchantEventsDays: number;
    idempotencyKeysDays: number;
    /** Rows one statement removes: small batches keep locks short. */
    batchSize: number;
  };
  /** Requests per minute: per shop key, per admin key (all replicas), per IPN source address (per replica); 0 turns one off. */
  rateLimits: { shopPerMinute: number; adminPerMinute: number; ipnPerMinute: number };
}

/**
 * About three days: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 12-hourly,
 * 15 attempts in all, so a shop that is down over a weekend still gets its events.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [
  '5s',
  '30s',
  '2m',
  '10m',
  '30m',
  '1h',
  '2h',
  '4h',
  '8h',
  '12h',
  '12h',
  '12h',
  '12h',
  '12h',
];

/** Reads and validates the api's and worker's environment; throws one error naming every bad variable. */
export function loadServiceConfig(
  env: Env = process.env,
  observe?: (read: VariableRead) => void,
): ServiceConfig {
  const r = new EnvReader(env, observe);
  const nodeEnv = r.oneOf<NodeEnvironment>(
    'NODE_ENV',
    ['development', 'test', 'production'],
    'development',
  );
  const production = nodeEnv === 'production';
  // With PESAPAL_ACCOUNTS, each account has its own pair: the single one is not asked for.
  const accountsListed = (env.PESAPAL_ACCOUNTS ?? '').split(',').some((entry) => entry.trim());
  const devDefault = <T>(value: T): T | undefined => (production ? undefined : value);

  const config: ServiceConfig = {
    nodeEnv,
    host: r.string('HOST', '127.0.0.1'),
    port: r.int('PORT', 3000, 0, 65535),
    workerPort: r.int('WORKER_PORT', 3002, 0, 65535),
    workerNice: r.int('WORKER_NICE', 10, 0, 19),
    metricsEnabled: r.bool('METRICS_ENABLED', true),
    metricsToken: r.string('METRICS_TOKEN', '') || null,
    databasePoolSize: {
      api: r.int('DATABASE_POOL_SIZE', 20, 1, 500),
      worker: r.int('WORKER_DATABASE_POOL_SIZE', 4, 1, 500),
    },
    databaseConnectTimeoutMs: r.int('DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 120_000),
    ...readLogging(r),
    databaseUrl: r.url(
      'DATABASE_URL',
      ['postgres', 'postgresql'],
      'postgres://postgres@127.0.0.1:5432/pesapal_checkout',
    ),
    databaseDirectUrl: '', // below: it defaults to DATABASE_URL
    databasePreparedStatements: r.bool('DATABASE_PREPARED_STATEMENTS', true),
    redisUrl: r.url('REDIS_URL', ['redis', 'rediss'], 'redis://127.0.0.1:6379'),
    redisClusterNodes: r.redisNodes('REDIS_CLUSTER_NODES'),
    queueBackend: r.oneOf<QueueBackend>('QUEUE_BACKEND', ['redis', 'postgres'], 'redis'),
    queueDatabasePoolSize: r.int('QUEUE_DATABASE_POOL_SIZE', 10, 1, 100),
    queuePrefix: r.string('QUEUE_PREFIX', 'pesapal'),
    runMigrationsOnStart: r.bool('RUN_MIGRATIONS', true),
    gateway: {
      baseUrl: r.url('PESAPAL_BASE_URL', ['http', 'https'], SANDBOX_DEFAULTS.baseUrl),
      consumerKey: accountsListed
        ? (r.optionalString('PESAPAL_CONSUMER_KEY') ?? '')
        : r.string('PESAPAL_CONSUMER_KEY', devDefault(SANDBOX_DEFAULTS.consumerKey)),
      consumerSecret: accountsListed
        ? (r.optionalString('PESAPAL_CONSUMER_SECRET') ?? '')
        : r.string('PESAPAL_CONSUMER_SECRET', devDefault(SANDBOX_DEFAULTS.consumerSecret)),
      timeoutMs: r.int('PESAPAL_TIMEOUT_MS', 10_000, 100, 120_000),
      mobileMoneyNetworks: r.list('MOBILE_MONEY_NETWORKS', ['MPESA', 'AIRTELKE']),
      accounts: [],
      accountForCurrency: new Map(),
    },
    warnings: [],
    publicBaseUrl: r.url('PUBLIC_BASE_URL', ['http', 'https'], 'http://127.0.0.1:3000'),
    ipnPathSecret: r.string('IPN_PATH_SECRET', devDefault('dev-ipn-secret')),
    statusTokenSecret: r.string('STATUS_TOKEN_SECRET', devDefault('dev-status-token-secret')),
    autoRefundDoublePayments: r.bool('AUTO_REFUND_DOUBLE_PAYMENTS', false),
    orderStreamPollMs: r.int('ORDER_STREAM_POLL_MS', 250, 20, 60_000),
    orderStreamHeartbeatMs: r.int('ORDER_STREAM_HEARTBEAT_MS', 15_000, 100, 600_000),
    ipnNotificationMethod: r.oneOf('IPN_NOTIFICATION_METHOD', ['GET', 'POST'] as const, 'POST'),
    currencies: r.list('CURRENCIES', ['KES', 'UGX', 'TZS', 'USD']),
    reportTimeZone: r.timeZone('REPORT_TIME_ZONE', 'Africa/Nairobi'),
    shopApiKeys: r.list('SHOP_API_KEYS', production ? [] : ['shop_dev_key']),
    corsAllowedOrigins: r.list('CORS_ALLOWED_ORIGINS', []),
    adminApiKeys: r.list('ADMIN_API_KEYS', production ? [] : ['admin_dev_key']),
    adminAuthSecret: r.string('ADMIN_AUTH_SECRET', devDefault('dev-admin-auth-secret')),
    oidc: null, // below: all of OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or none
    adminSessionIdleMinutes: r.int('ADMIN_SESSION_IDLE_MINUTES', 15, 1, 24 * 60),
    adminSessionMaxHours: r.int('ADMIN_SESSION_MAX_HOURS', 12, 1, 24 * 30),
    refundApprovalThresholds: new Map(),
    defaultReturnUrl: r.optionalString('DEFAULT_RETURN_URL'),
    pollHorizonHours: r.int('POLL_HORIZON_HOURS', 72, 1, 24 * 90),
    paymentLinkHoldMinutes: r.int('PAYMENT_LINK_HOLD_MINUTES', 30, 1, 24 * 60),
    pollScheduleSeconds: r
      .list('POLL_SCHEDULE_SECONDS', DEFAULT_POLL_SCHEDULE_SECONDS.map(String))
      .map((step) => {
        if (!/^\d+$/.test(step) || Number(step) < 1) {
          r.problems.push(`POLL_SCHEDULE_SECONDS must list whole seconds (got "${step}")`);
        }
        return Number(step);
      }),
    sweepIntervalMs: r.int('SWEEP_INTERVAL_MS', 15_000, 100, 3_600_000),
    lookupsPerSecond: r.int('GATEWAY_LOOKUPS_PER_SECOND', 1000, 1, 100_000),
    orderLookupIntervalMs: r.int('ORDER_LOOKUP_INTERVAL_MS', 1000, 0, 600_000),
    unmatchedRetryMs: r.int('IPN_UNMATCHED_RETRY_MS', 5000, 10, 3_600_000),
    notificationQueueDepth: r.int('NOTIFICATION_QUEUE_DEPTH', 60, 1, 100_000),
    ipnStoreGatherMs: r.int('IPN_STORE_GATHER_MS', 2, 0, 50),
    ipnStoreWriters: r.int('IPN_STORE_WRITERS', 8, 1, 64),
    jobLockMs: r.int('JOB_LOCK_MS', 30_000, 500, 600_000),
    orderWebhookUrl: r.optionalString('ORDER_WEBHOOK_URL'),
    orderWebhookSecrets: r.list('ORDER_WEBHOOK_SECRET', []),
    webhookRetryScheduleMs: r.durations('WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    webhookDisableAfterMs: r.duration('WEBHOOK_DISABLE_AFTER', '5d'),
    webhookTimeoutMs: r.int('WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    webhookAllowPrivate: r.bool('WEBHOOK_ALLOW_PRIVATE', !production),
    retention: {
      notificationsDays: r.int('RETENTION_NOTIFICATIONS_DAYS', 30, 0, 3650),
      merchantEventsDays: r.int('RETENTION_MERCHANT_EVENTS_DAYS', 30, 0, 3650),
      idempotencyKeysDays: r.int('RETENTION_IDEMPOTENCY_KEYS_DAYS', 1, 0, 3650),
      batchSize: r.int('RETENTION_BATCH_SIZE', 1000, 10, 10_000),
    },
    rateLimits: {
      shopPerMinute: r.int('RATE_LIMIT_SHOP_PER_MINUTE', 60_000, 0, 10_000_000),
      adminPerMinute: r.int('RATE_LIMIT_ADMIN_PER_MINUTE', 6_000, 0, 10_000_000),
      ipnPerMinute: r.int('RATE_LIMIT_IPN_PER_MINUTE', 120_000, 0, 10_000_000),
    },
  };
  // Unset, it is DATABASE_URL (already checked: one problem named once).
  r.note({
    name: 'DATABASE_DIRECT_URL',
    kind: 'url',
    fallback: 'DATABASE_URL',
    allowed: ['postgres', 'postgresql'],
  });
  config.databaseDirectUrl = env.DATABASE_DIRECT_URL?.trim()
    ? r.url('DATABASE_DIRECT_URL', ['postgres', 'postgresql'], config.databaseUrl)
    : config.databaseUrl;

  config.oidc = readOidc(r);
  readAccounts(r, env, config);
  for (const entry of r.list('REFUND_APPROVAL_THRESHOLD', [])) {
    const [currency, amount] = entry.split(':').map((part) => part.trim());
    if (!currency || !/^[A-Z]{3}$/.test(currency) || !amount || !Money.isValidDecimal(amount)) {
      r.problems.push(
        `REFUND_APPROVAL_THRESHOLD must list CURRENCY:amount, e.g. KES:50000 (got "${entry}")`,
      );
      continue;
    }
    config.refundApprovalThresholds.set(currency, Money.of(amount, currency).toDecimalString());
  }

  if (config.redisClusterNodes.length > 0 && config.queueBackend !== 'redis') {
    r.problems.push('REDIS_CLUSTER_NODES needs QUEUE_BACKEND=redis');
  }

  if (production) {
    if (config.shopApiKeys.length === 0) r.problems.push('SHOP_API_KEYS is required in production');
    if (config.adminApiKeys.length === 0)
      r.problems.push('ADMIN_API_KEYS is required in production');
    if (!config.publicBaseUrl.startsWith('https://'))
      r.problems.push('PUBLIC_BASE_URL must use https in production');
  }
  if (production && config.oidc && !config.oidc.issuerUrl.startsWith('https://')) {
    r.problems.push('OIDC_ISSUER_URL must use https in production');
  }
  if (production && config.adminAuthSecret && config.adminAuthSecret.length < 32) {
    r.problems.push('ADMIN_AUTH_SECRET must be at least 32 characters');
  }
  if (production && config.statusTokenSecret && config.statusTokenSecret.length < 32) {
    r.problems.push('STATUS_TOKEN_SECRET must be at least 32 characters');
  }
  if (config.ipnPathSecret && !/^[A-Za-z0-9_-]{8,}$/.test(config.ipnPathSecret)) {
    r.problems.push('IPN_PATH_SECRET must be at least 8 characters of A-Z a-z 0-9 _ -');
  }
  for (const origin of config.corsAllowedOrigins) {
    // An origin is scheme://host[:port] exactly as browsers send it (lower case, default port
    // left out): no path, query, user or wildcard.
    if (!isOrigin(origin)) {
      r.problems.push(
        `CORS_ALLOWED_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path)`,
      );
    }
  }
  if (config.orderWebhookUrl && config.orderWebhookSecrets.length === 0) {
    r.problems.push('ORDER_WEBHOOK_SECRET is required when ORDER_WEBHOOK_URL is set');
  }
  for (const [index, secret] of config.orderWebhookSecrets.entries()) {
    const checked = webhookSigningKey(secret);
    if ('problem' in checked) {
      r.problems.push(
        `ORDER_WEBHOOK_SECRET (secret ${index + 1}) ${checked.problem}; make one with: npm run -s webhook-secret`,
      );
    }
  }
  for (const name of ['MERCHANT_WEBHOOK_BACKOFF_MS', 'MERCHANT_WEBHOOK_TIMEOUT_MS']) {
    if (env[name] !== undefined) {
      r.problems.push(`${name} was replaced by WEBHOOK_RETRY_SCHEDULE and WEBHOOK_TIMEOUT_MS`);
    }
  }
  const overlap = config.shopApiKeys.filter((key) => config.adminApiKeys.includes(key));
  if (overlap.length > 0) r.problems.push('SHOP_API_KEYS and ADMIN_API_KEYS must not share a key');

  if (r.problems.length > 0) throw new ConfigValidationError(r.problems);
  return config;
}

/**
 * PESAPAL_ACCOUNTS (`ke:KES,ug:UGX`, a currency list per account joined by `/`): each account's
 * PESAPAL_ACCOUNT_<ID>_CONSUMER_KEY, _CONSUMER_SECRET and optional _BASE_URL. A currency taken by
 * two accounts needs its default in PESAPAL_CURRENCY_ACCOUNTS (`USD:ke`). Without PESAPAL_ACCOUNTS
 * the single pair is the account `default`, taking every currency.
 */
function readAccounts(r: EnvReader, env: Env, config: ServiceConfig): void {
  const listed = r.list('PESAPAL_ACCOUNTS', []);
  const defaults = r.list('PESAPAL_CURRENCY_ACCOUNTS', []);
  const gateway = config.gateway;
  if (listed.length === 0) {
    const stray = Object.keys(env).filter(
      (name) =>
        (name === 'PESAPAL_CURRENCY_ACCOUNTS' || name.startsWith('PESAPAL_ACCOUNT_')) &&
        env[name]?.trim(),
    );
    if (stray.length > 0) {
      config.warnings.push(`${stray.join(', ')} not used: PESAPAL_ACCOUNTS names no account`);
    }
    gateway.accounts = [
      {
        id: DEFAULT_ACCOUNT,
        currencies: config.currencies.map((c) => c.toUpperCase()),
        baseUrl: gateway.baseUrl,
        consumerKey: gateway.consumerKey,
        consumerSecret: gateway.consumerSecret,
      },
    ];
    for (const currency of gateway.accounts[0].currencies) {
      gateway.accountForCurrency.set(currency, DEFAULT_ACCOUNT);
    }
    return;
  }
  if (env.PESAPAL_CONSUMER_KEY?.trim() || env.PESAPAL_CONSUMER_SECRET?.trim()) {
    config.warnings.push(
      'PESAPAL_CONSUMER_KEY/PESAPAL_CONSUMER_SECRET are not used: PESAPAL_ACCOUNTS names the accounts',
    );
  }
  const takers = new Map<string, string[]>();
  for (const entry of listed) {
    const [id, currencyList = ''] = entry.split(':').map((part) => part.trim());
    if (!ACCOUNT_ID_PATTERN.test(id)) {
      r.problems.push(
        `PESAPAL_ACCOUNTS: "${id}" is not an account id (a-z, 0-9, _; starting with a letter)`,
      );
      continue;
    }
    if (gateway.accounts.some((account) => account.id === id)) {
      r.problems.push(`PESAPAL_ACCOUNTS names account ${id} twice`);
      continue;
    }
    const currencies = [
      ...new Set(
        currencyList
          .split('/')
          .map((c) => c.trim().toUpperCase())
          .filter(Boolean),
      ),
    ];
    if (currencies.length === 0 || currencies.some((c) => !/^[A-Z]{3}$/.test(c))) {
      r.problems.push(`PESAPAL_ACCOUNTS must list id:CURRENCY[/CURRENCY] (got "${entry}")`);
      continue;
    }
    const offered = config.currencies.map((c) => c.toUpperCase());
    const unoffered = currencies.filter((c) => !offered.includes(c));
    if (unoffered.length > 0) {
      r.problems.push(
        `PESAPAL_ACCOUNTS: account ${id} takes ${unoffered.join(', ')}, not in CURRENCIES (${offered.join(',')})`,
      );
    }
    const variable = (part: string) => `PESAPAL_ACCOUNT_${id.toUpperCase()}_${part}`;
    const consumerKey = env[variable('CONSUMER_KEY')]?.trim();
    const consumerSecret = env[variable('CONSUMER_SECRET')]?.trim();
    if (!consumerKey) r.problems.push(`${variable('CONSUMER_KEY')} is required (account ${id})`);
    if (!consumerSecret) {
      r.problems.push(`${variable('CONSUMER_SECRET')} is required (account ${id})`);
    }
    const baseUrl = env[variable('BASE_URL')]?.trim().replace(/\/+$/, '') || gateway.baseUrl;
    if (!/^https?:\/\//.test(baseUrl)) {
      r.problems.push(`${variable('BASE_URL')} must be an http(s) URL`);
    }
    gateway.accounts.push({
      id,
      currencies,
      baseUrl,
      consumerKey: consumerKey ?? '',
      consumerSecret: consumerSecret ?? '',
    });
    for (const currency of currencies) takers.set(currency, [...(takers.get(currency) ?? []), id]);
  }
  const chosen = new Map<string, string>();
  for (const entry of defaults) {
    const [currency, id] = entry.split(':').map((part) => part.trim());
    const upper = (currency ?? '').toUpperCase();
    if (!takers.get(upper)?.includes(id ?? '')) {
      r.problems.push(
        `PESAPAL_CURRENCY_ACCOUNTS: "${entry}" names no account of PESAPAL_ACCOUNTS taking ${upper || 'that currency'}`,
      );
      continue;
    }
    chosen.set(upper, id);
  }
  const untaken = config.currencies
    .map((c) => c.toUpperCase())
    .filter((currency) => !takers.has(currency));
  if (untaken.length > 0) {
    config.warnings.push(
      `no account of PESAPAL_ACCOUNTS takes ${untaken.join(', ')} (in CURRENCIES): checkouts in it are refused`,
    );
  }
  for (const [currency, ids] of takers) {
    const pick = chosen.get(currency) ?? (ids.length === 1 ? ids[0] : undefined);
    if (!pick) {
      r.problems.push(
        `${currency} is taken by accounts ${ids.join(' and ')}: name its default in PESAPAL_CURRENCY_ACCOUNTS (e.g. ${currency}:${ids[0]})`,
      );
      continue;
    }
    gateway.accountForCurrency.set(currency, pick);
  }
}

/** OIDC_*: all three of issuer, client id and secret, or none (sign-in then needs a key). */
function readOidc(r: EnvReader): OidcConfig | null {
  const issuerUrl = r.optionalString('OIDC_ISSUER_URL');
  const clientId = r.optionalString('OIDC_CLIENT_ID');
  const clientSecret = r.optionalString('OIDC_CLIENT_SECRET');
  const rolesClaim = r.string('OIDC_ROLES_CLAIM', 'groups');
  const scopes = r.string('OIDC_SCOPES', 'openid email profile');
  const mapEntries = r.list('OIDC_ROLE_MAP', []);
  const roleMap = new Map<string, Role[]>();
  for (const entry of mapEntries) {
    const separator = entry.lastIndexOf('=');
    const group = entry.slice(0, separator).trim();
    const role = entry.slice(separator + 1).trim();
    if (separator <= 0 || !group) {
      r.problems.push(`OIDC_ROLE_MAP must list group=role pairs (got "${entry}")`);
    } else if (!isRole(role)) {
      r.problems.push(
        `OIDC_ROLE_MAP: "${role}" (for group "${group}") is not a role; roles: ${ROLE_NAMES}`,
      );
    } else {
      roleMap.set(group, [...(roleMap.get(group) ?? []), role]);
    }
  }
  const given = [issuerUrl, clientId, clientSecret].filter((value) => value !== undefined);
  if (given.length === 0) return null;
  if (given.length < 3) {
    r.problems.push('OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together');
    return null;
  }
  const issuer = r.url('OIDC_ISSUER_URL', ['http', 'https'], undefined);
  if (!scopes.split(/\s+/).includes('openid')) r.problems.push('OIDC_SCOPES must include openid');
  return {
    issuerUrl: issuer,
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    rolesClaim,
    roleMap,
    scopes,
  };
}

/** Whether `text` is an http(s) origin exactly as a browser sends it in its Origin header. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.origin === text &&
      !url.hostname.includes('*')
    );
  } catch {
    return false;
  }
}
