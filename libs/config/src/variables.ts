/**
 * What each variable means, for the configuration reference (docs/configuration.md, made by
 * `npm run docs:config` from these notes and from what the config loaders read: their names,
 * defaults and bounds). A test fails when a loader reads a variable without a note here, or when
 * the reference, .env.example or the Kubernetes ConfigMap and Secret differ from them.
 */
export type AppName = 'api' | 'worker' | 'sandbox' | 'npm start' | 'tests';

export interface VariableNotes {
  meaning: string;
  /** Kept in the Kubernetes Secret, never the ConfigMap, and never logged. */
  secret?: boolean;
  /** The apps that use it (the api and the worker read one configuration). */
  apps?: AppName[];
}

/** The api's and the worker's variables (libs/config/src/service-config.ts). */
export const SERVICE_VARIABLES: Record<string, VariableNotes> = {
  METRICS_ENABLED: {
    meaning: "`GET /metrics` on the api and on the worker's health port (Prometheus text format)",
  },
  METRICS_TOKEN: {
    meaning:
      'when set, `/metrics` asks for this bearer token (otherwise it is open: keep the port private)',
    secret: true,
  },
  NODE_ENV: {
    meaning: '`development`, `test` or `production`; production refuses the sandbox defaults below',
  },
  HOST: {
    meaning:
      "interface the api and the worker's health port listen on (and the sandbox's); `0.0.0.0` in containers. A taken port stops the app with one line, e.g. `PORT 3000 is in use; set PORT=... to another port`",
  },
  PORT: { meaning: 'api HTTP port', apps: ['api'] },
  WORKER_PORT: { meaning: 'worker health port', apps: ['worker'] },
  DATABASE_POOL_SIZE: { meaning: 'connections the api keeps to PostgreSQL', apps: ['api'] },
  DATABASE_CONNECT_TIMEOUT_MS: {
    meaning:
      'how long a new connection to PostgreSQL may take; a call still waiting then answers 503 `database_unavailable`',
  },
  WORKER_DATABASE_POOL_SIZE: {
    meaning:
      "connections the worker keeps: few on purpose, so its statements queue in its own pool rather than run as many backends beside the api's on shared cores (4 carry a few hundred verifications/s)",
    apps: ['worker'],
  },
  WORKER_NICE: {
    meaning:
      "the worker's CPU priority (0–19; 0 = same as the api): where both share cores, acknowledging notifications goes first",
    apps: ['worker'],
  },
  LOG_LEVEL: {
    meaning:
      "the least severe records written (`debug` adds Nest's start-up wiring: each module initialised, each route mapped)",
  },
  LOG_FILE: {
    meaning:
      'append the JSON log lines to this file instead (several processes may share it: each line is written whole)',
  },
  LOG_FORMAT: {
    meaning:
      '`json`, or `pretty`: one readable line per record for a terminal (`npm start` sets `pretty` unless `NODE_ENV=production`)',
  },
  DATABASE_URL: { meaning: 'PostgreSQL', secret: true },
  REDIS_URL: { meaning: 'Redis (queues, token cache)', secret: true },
  REDIS_CLUSTER_NODES: {
    meaning:
      "a Redis Cluster instead of `REDIS_URL`: seed nodes, comma-separated, `host:port` or `redis[s]://[user:password@]host:port` (the first node's credentials and TLS apply to all); each queue's keys carry a hash tag (`{<prefix>:<queue>}`), so a queue lives in one slot and the queues spread over the masters",
    secret: true,
  },
  QUEUE_BACKEND: {
    meaning: "`redis`, or `postgres` for BullMQ's PostgreSQL backend in `DATABASE_URL`",
  },
  QUEUE_DATABASE_POOL_SIZE: {
    meaning:
      'on the `postgres` queue backend, connections each queue and each worker of BullMQ may open (its LISTEN connection apart); a worker process has one of each per queue it runs',
  },
  QUEUE_PREFIX: {
    meaning:
      'prefix of all queue keys, so deployments and test runs can share a Redis; on the PostgreSQL queue backend (which has no key prefix) it picks the BullMQ schema instead (`bullmq` for the default, else `bullmq_<prefix>`)',
  },
  RUN_MIGRATIONS: { meaning: 'apply pending migrations at start (under an advisory lock)' },
  PESAPAL_BASE_URL: {
    meaning:
      'gateway base URL (Pesapal demo: `https://cybqa.pesapal.com/pesapalv3/api`, live: `https://pay.pesapal.com/v3/api`)',
  },
  PESAPAL_CONSUMER_KEY: { meaning: 'merchant key from Pesapal', secret: true },
  PESAPAL_CONSUMER_SECRET: { meaning: 'merchant secret; never logged', secret: true },
  PESAPAL_ACCOUNTS: {
    meaning:
      'several Pesapal merchant accounts (one per country), `id:CURRENCY[/CURRENCY]` comma-separated, e.g. `ke:KES,ug:UGX,tz:TZS`; each account reads `PESAPAL_ACCOUNT_<ID>_CONSUMER_KEY`, `PESAPAL_ACCOUNT_<ID>_CONSUMER_SECRET` (secrets) and optionally `PESAPAL_ACCOUNT_<ID>_BASE_URL` (default `PESAPAL_BASE_URL`). Unset: the single pair above is the account `default`, taking every currency; set, the single pair is not used',
  },
  PESAPAL_CURRENCY_ACCOUNTS: {
    meaning:
      'the account a checkout in a currency taken by several accounts goes to, `CURRENCY:id` comma-separated (e.g. `USD:ke`); a checkout may name its `account` instead',
  },
  PESAPAL_TIMEOUT_MS: { meaning: 'timeout of one gateway call' },
  MOBILE_MONEY_NETWORKS: { meaning: 'networks offered for mobile-money push', apps: ['api'] },
  PUBLIC_BASE_URL: {
    meaning: "where the gateway and the customer's browser reach us; https in production",
  },
  IPN_PATH_SECRET: {
    meaning: 'secret path segment of the IPN URL (8+ of `A-Za-z0-9_-`)',
    secret: true,
  },
  STATUS_TOKEN_SECRET: {
    meaning:
      "signs each checkout's `status_token` (live status for the customer's browser); 32+ characters in production; changing it invalidates the tokens given out",
    secret: true,
    apps: ['api'],
  },
  AUTO_REFUND_DOUBLE_PAYMENTS: {
    meaning:
      "`true`: the worker refunds a double payment's second payment at once, without an admin (below)",
    apps: ['worker'],
  },
  ORDER_STREAM_POLL_MS: {
    meaning:
      "how often an api replica with live-status subscribers looks for their orders' changes",
    apps: ['api'],
  },
  ORDER_STREAM_HEARTBEAT_MS: {
    meaning: 'a comment line this often keeps an idle live-status stream open',
    apps: ['api'],
  },
  IPN_NOTIFICATION_METHOD: { meaning: '`GET` or `POST`, how the gateway calls the IPN URL' },
  CURRENCIES: { meaning: 'currencies a checkout may use', apps: ['api'] },
  REPORT_TIME_ZONE: {
    meaning:
      'the IANA time zone payment exports and daily reports read whole days in, unless a request names its own `tz`',
    apps: ['api'],
  },
  SHOP_API_KEYS: {
    meaning: 'comma-separated API keys of the shop endpoints',
    secret: true,
    apps: ['api'],
  },
  CORS_ALLOWED_ORIGINS: {
    meaning:
      'comma-separated origins (`https://shop.example`) whose pages may call the api from the browser; none unless listed (the live stream is readable from any origin)',
    apps: ['api'],
  },
  ADMIN_API_KEYS: {
    meaning:
      'comma-separated bootstrap keys of the admin endpoints (`name:key` or `key`): each acts as an `admin`, named in the audit trail as a bootstrap key; none shared with the shop list',
    secret: true,
    apps: ['api'],
  },
  ADMIN_AUTH_SECRET: {
    meaning:
      'keys the hash scoped API keys are stored under and signs the sign-in cookie (at least 32 characters in production); changing it invalidates every scoped key',
    secret: true,
    apps: ['api'],
  },
  OIDC_ISSUER_URL: {
    meaning:
      "the identity provider's issuer (OpenID Connect discovery at `<issuer>/.well-known/openid-configuration`); with the client id and secret, `/admin` signs people in there (redirect `<PUBLIC_BASE_URL>/admin/auth/callback`)",
    apps: ['api'],
  },
  OIDC_CLIENT_ID: { meaning: "the console's client id at the identity provider", apps: ['api'] },
  OIDC_CLIENT_SECRET: {
    meaning: "the console's client secret at the identity provider",
    secret: true,
    apps: ['api'],
  },
  OIDC_ROLES_CLAIM: {
    meaning: "the ID token's (or userinfo's) claim that lists the person's groups",
    apps: ['api'],
  },
  OIDC_ROLE_MAP: {
    meaning:
      'groups to roles, `group=role` comma-separated (a group may appear twice), e.g. `payments-admins=admin,finance=refund_approver,support=refund_requester`; roles: viewer, operator, refund_requester, refund_approver, developer, auditor, admin. A person whose groups map to nothing signs in with no role',
    apps: ['api'],
  },
  OIDC_SCOPES: { meaning: 'scopes asked of the identity provider', apps: ['api'] },
  ADMIN_SESSION_IDLE_MINUTES: {
    meaning: 'a console session ends after this many minutes without a request',
    apps: ['api'],
  },
  ADMIN_SESSION_MAX_HOURS: {
    meaning: 'a console session ends this many hours after sign-in, however active',
    apps: ['api'],
  },
  REFUND_APPROVAL_THRESHOLD: {
    meaning:
      'refunds above these amounts wait for a second person with `refund_approver` (`CURRENCY:amount` comma-separated, e.g. `KES:50000,UGX:1500000`; other currencies need no approval)',
    apps: ['api'],
  },
  DEFAULT_RETURN_URL: {
    meaning: 'where the customer lands when a checkout names no return URL',
    apps: ['api'],
  },
  POLL_HORIZON_HOURS: { meaning: 'how long a silent order is polled', apps: ['worker'] },
  PAYMENT_LINK_HOLD_MINUTES: {
    meaning:
      "how long a payment started on a payment link's page holds one of the link's uses (links with max_payments)",
    apps: ['api'],
  },
  POLL_SCHEDULE_SECONDS: {
    meaning: 'gaps between polls; the last repeats until the horizon',
    apps: ['worker'],
  },
  SWEEP_INTERVAL_MS: {
    meaning:
      'how often the worker sweeps for due polls (the inbox relay looks at least every second, the webhook dispatcher every 250 ms)',
    apps: ['worker'],
  },
  ORDER_WEBHOOK_URL: {
    meaning:
      'optional bootstrap webhook endpoint receiving every event type (admins add more through the API)',
  },
  ORDER_WEBHOOK_SECRET: {
    meaning:
      'its `whsec_` signing secret(s), comma-separated for rotation; required with `ORDER_WEBHOOK_URL` (`npm run -s webhook-secret`)',
    secret: true,
  },
  WEBHOOK_RETRY_SCHEDULE: {
    meaning: "gaps between a webhook's attempts (±20 %); after the last, the message fails",
    apps: ['worker'],
  },
  WEBHOOK_DISABLE_AFTER: {
    meaning: 'an endpoint with no successful delivery for this long is disabled',
    apps: ['worker'],
  },
  WEBHOOK_TIMEOUT_MS: { meaning: 'how long one webhook POST may take', apps: ['worker'] },
  WEBHOOK_ALLOW_PRIVATE: { meaning: 'lets endpoints be http and on loopback/private addresses' },
  RATE_LIMIT_SHOP_PER_MINUTE: {
    meaning: 'requests a minute per shop key, all replicas together (`0`: off)',
    apps: ['api'],
  },
  RATE_LIMIT_ADMIN_PER_MINUTE: {
    meaning: 'requests a minute per admin key, all replicas together (`0`: off)',
    apps: ['api'],
  },
  RATE_LIMIT_IPN_PER_MINUTE: {
    meaning: 'notifications a minute per source address, per api replica (`0`: off)',
    apps: ['api'],
  },
  GATEWAY_LOOKUPS_PER_SECOND: {
    meaning: "overall cap on the workers' transaction lookups",
    apps: ['worker'],
  },
  ORDER_LOOKUP_INTERVAL_MS: {
    meaning: 'a burst of notifications for one order shares one lookup per interval',
    apps: ['worker'],
  },
  IPN_UNMATCHED_RETRY_MS: {
    meaning: 'first retry of a notification naming an unknown order (doubles)',
    apps: ['worker'],
  },
  DATABASE_DIRECT_URL: {
    meaning:
      "PostgreSQL without a pooler in between, for LISTEN, the migration lock and BullMQ's PostgreSQL backend (see below)",
    secret: true,
  },
  DATABASE_PREPARED_STATEMENTS: {
    meaning:
      '`false` sends the hot statements unnamed, for a transaction-mode pooler that keeps no prepared statements',
  },
  IPN_STORE_GATHER_MS: {
    meaning:
      'the api waits this long for more notifications to store in the same statement and commit before acknowledging (`0`: at once); fewer commits for that much latency',
    apps: ['api'],
  },
  IPN_STORE_WRITERS: {
    meaning:
      'statements storing notifications the api has under way at once, each a connection of its pool and a commit of its own, and never more than half of `DATABASE_POOL_SIZE`; while they are all waiting for their commits, new notifications gather for the next one',
    apps: ['api'],
  },
  NOTIFICATION_QUEUE_DEPTH: {
    meaning:
      'verification jobs (of up to 100 notifications each) the inbox relay lets wait in Redis; a longer backlog waits in Postgres',
    apps: ['worker'],
  },
  JOB_LOCK_MS: {
    meaning: 'how long a worker holds a job before another may take it over',
    apps: ['worker'],
  },
  RETENTION_NOTIFICATIONS_DAYS: {
    meaning:
      'settled (applied or ignored) notifications are removed after this many days (`0`: kept for ever)',
    apps: ['worker'],
  },
  RETENTION_MERCHANT_EVENTS_DAYS: {
    meaning:
      'merchant events handed to every endpoint, with their webhook messages and delivery attempts, are removed after this many days (`0`: kept)',
    apps: ['worker'],
  },
  RETENTION_IDEMPOTENCY_KEYS_DAYS: {
    meaning: 'idempotency keys are removed this many days after they expire (`0`: kept)',
    apps: ['worker'],
  },
  RETENTION_BATCH_SIZE: {
    meaning: 'rows one retention statement removes (10-10,000)',
    apps: ['worker'],
  },
};

/** The sandbox's variables (libs/config/src/sandbox-config.ts). */
export const SANDBOX_VARIABLES: Record<string, VariableNotes> = {
  HOST: { meaning: 'interface the sandbox listens on, as for the api' },
  SANDBOX_PORT: { meaning: 'sandbox HTTP port' },
  LOG_LEVEL: { meaning: 'as above' },
  LOG_FILE: { meaning: 'as above' },
  LOG_FORMAT: { meaning: 'as above' },
  SANDBOX_NOTIFICATION_LOG_LIMIT: {
    meaning: 'notification records kept for `GET /__sandbox/notifications`',
  },
  SANDBOX_PUBLIC_URL: { meaning: 'base of the hosted page URL it hands out (`redirect_url`)' },
  SANDBOX_MERCHANTS: { meaning: 'accepted `key:secret` pairs, comma-separated' },
  SANDBOX_CONTROL: { meaning: 'enable the control API (`npm start` turns it on)' },
  SANDBOX_CONTROL_PUBLIC: {
    meaning: 'let the control API answer on interfaces other than loopback (otherwise 404 there)',
  },
  SANDBOX_PUSH_DELAY_MS: { meaning: 'delay before a simulated mobile-money push completes' },
  SANDBOX_IPN_RATE_LIMIT_MS: {
    meaning: 'RegisterIPN rate limit: one success per interval, per merchant',
  },
  SANDBOX_TOKEN_LIFETIME_SECONDS: { meaning: 'access token lifetime' },
  SANDBOX_IPN_TIMEOUT_MS: { meaning: 'a slower IPN receiver is abandoned for that attempt' },
  SANDBOX_IPN_MAX_ATTEMPTS: { meaning: 'IPN delivery attempts until a 200' },
  SANDBOX_IPN_RETRY_BASE_MS: { meaning: 'first IPN retry delay; doubles per retry' },
};

/** Variables read outside the loaders, with their default as text. */
export type OtherVariable = VariableNotes & { fallback: string };

/** The api's and the worker's, read by OpenTelemetry's SDK (libs/common/src/tracing). */
export const TRACING_VARIABLES: Record<string, OtherVariable> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    meaning:
      'OTLP/HTTP collector to send traces to; unset, tracing is off (the other standard `OTEL_*` variables apply, e.g. `OTEL_SERVICE_NAME`)',
    apps: ['api', 'worker'],
    fallback: '',
  },
};

/** Read by `npm start` (scripts/run.js) and by the tests' setup only. */
export const SCRIPT_VARIABLES: Record<string, OtherVariable> = {
  EMBEDDED_POSTGRES_PORT: {
    meaning: 'port of the embedded PostgreSQL `npm start` runs when none answers on 5432',
    apps: ['npm start'],
    fallback: '54320',
  },
  START_FROM_SOURCE: {
    meaning:
      '`1`: `npm start` runs each app from its TypeScript sources (through swc), with no build first',
    apps: ['npm start'],
    fallback: '',
  },
  TEST_POSTGRES_URL: {
    meaning:
      'server (no database name) the tests create their database on, instead of probing 5432',
    apps: ['tests'],
    fallback: '',
  },
  TEST_LOG_LEVEL: {
    meaning:
      "log level of the apps inside the tests, printed to the console; unset, they log at `debug` into the run's log files for the secret audit",
    apps: ['tests'],
    fallback: '',
  },
  TEST_QUEUE_BACKEND: {
    meaning: '`postgres` runs the suites as a machine without Redis would, on a real PostgreSQL',
    apps: ['tests'],
    fallback: '',
  },
  TEST_POSTGRES_BINARIES: {
    meaning:
      "`embedded`: the suites that run PostgreSQL clusters of their own (the backup drill) use the embedded-postgres package's binaries even where the machine has `/usr/lib/postgresql`",
    apps: ['tests'],
    fallback: '',
  },
  TEST_INSTALL_PACKAGES: {
    meaning:
      '`0`: the test setup never installs what the browser and pooler suites need (Chromium, PgBouncer); otherwise it does as root with apt',
    apps: ['tests'],
    fallback: '1',
  },
  SKIP_BROWSER_TESTS: {
    meaning: '`1` skips the browser suites (where Chromium cannot be installed)',
    apps: ['tests'],
    fallback: '',
  },
  CHROMIUM_PATH: {
    meaning: 'the Chromium the browser suites drive (else the first one on `PATH`)',
    apps: ['tests'],
    fallback: '',
  },
  FUZZ_RUNS: {
    meaning:
      'generated requests per endpoint property in the fuzzing suites (`npm run fuzz`: 10,000)',
    apps: ['tests'],
    fallback: '40',
  },
  FUZZ_SEED: {
    meaning: "the fuzzing suites' seed, to replay a failure",
    apps: ['tests'],
    fallback: '',
  },
};
