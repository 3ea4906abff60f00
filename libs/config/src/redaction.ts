/**
 * Log paths that may hold secrets; pino replaces their values with "[redacted]".
 * Keys, secrets, tokens and API keys must never reach a log line.
 */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'consumer_key',
  'consumer_secret',
  'consumerKey',
  'consumerSecret',
  'token',
  'accessToken',
  '*.consumer_key',
  '*.consumer_secret',
  '*.consumerKey',
  '*.consumerSecret',
  '*.clientSecret',
  '*.token',
  '*.authorization',
  '*.apiKey',
  '*.secret',
];
