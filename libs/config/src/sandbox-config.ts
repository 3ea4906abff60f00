import { LoggingConfig, readLogging, SANDBOX_DEFAULTS } from './service-config';
import { ConfigValidationError, Env, EnvReader, VariableRead } from './env-parsers';

export interface SandboxMerchant {
  consumerKey: string;
  consumerSecret: string;
}

export interface SandboxConfig extends LoggingConfig {
  host: string;
  port: number;
  /** Base URL the sandbox advertises in redirect_url (its own hosted page). */
  publicUrl: string;
  merchants: SandboxMerchant[];
  controlEnabled: boolean;
  /** The control API answers on every interface, not only loopback (SANDBOX_CONTROL_PUBLIC). */
  controlPublic: boolean;
  pushDelayMs: number;
  ipnRateLimitMs: number;
  tokenLifetimeSeconds: number;
  /** A receiver slower than this is abandoned for the attempt (then retried). */
  ipnDeliveryTimeoutMs: number;
  /** Attempts per notification until a 200 acknowledgement. */
  ipnMaxAttempts: number;
  /** Wait before the first retry; doubles on each further retry. */
  ipnRetryBaseMs: number;
  /** Notification records kept for the control API (oldest dropped first). */
  notificationLogLimit: number;
}

/** SANDBOX_MERCHANTS is a comma-separated list of key:secret pairs. */
export function loadSandboxConfig(
  env: Env = process.env,
  observe?: (read: VariableRead) => void,
): SandboxConfig {
  const r = new EnvReader(env, observe);
  const port = r.int('SANDBOX_PORT', SANDBOX_DEFAULTS.port, 0, 65535);
  const merchants = r
    .list('SANDBOX_MERCHANTS', [
      `${SANDBOX_DEFAULTS.consumerKey}:${SANDBOX_DEFAULTS.consumerSecret}`,
    ])
    .map((pair) => {
      const [consumerKey, consumerSecret] = pair.split(':');
      if (!consumerKey || !consumerSecret) {
        r.problems.push('SANDBOX_MERCHANTS must be a comma-separated list of key:secret pairs');
      }
      return { consumerKey: consumerKey ?? '', consumerSecret: consumerSecret ?? '' };
    });
  const config: SandboxConfig = {
    host: r.string('HOST', '127.0.0.1'),
    port,
    ...readLogging(r),
    publicUrl: r.url('SANDBOX_PUBLIC_URL', ['http', 'https'], `http://127.0.0.1:${port}`),
    merchants,
    controlEnabled: r.bool('SANDBOX_CONTROL', false),
    controlPublic: r.bool('SANDBOX_CONTROL_PUBLIC', false),
    pushDelayMs: r.int('SANDBOX_PUSH_DELAY_MS', 3000, 0, 600_000),
    ipnRateLimitMs: r.int('SANDBOX_IPN_RATE_LIMIT_MS', 8000, 0, 600_000),
    tokenLifetimeSeconds: r.int('SANDBOX_TOKEN_LIFETIME_SECONDS', 3600, 1, 86_400),
    ipnDeliveryTimeoutMs: r.int('SANDBOX_IPN_TIMEOUT_MS', 5000, 50, 120_000),
    ipnMaxAttempts: r.int('SANDBOX_IPN_MAX_ATTEMPTS', 5, 1, 50),
    ipnRetryBaseMs: r.int('SANDBOX_IPN_RETRY_BASE_MS', 2000, 0, 600_000),
    notificationLogLimit: r.int('SANDBOX_NOTIFICATION_LOG_LIMIT', 2000, 1, 1_000_000),
  };
  if (r.problems.length > 0) throw new ConfigValidationError(r.problems);
  return config;
}
