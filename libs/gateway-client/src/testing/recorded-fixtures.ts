import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RecordedResponse {
  recorded: string;
  http_status: number;
  content_type: string;
  body: unknown;
}

const FIXTURE_DIR = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'real-sandbox');

/** A response recorded from the gateway's real sandbox (see test/fixtures/real-sandbox/README.md). */
export function recordedResponse(name: string): RecordedResponse {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.json`), 'utf8')) as RecordedResponse;
}

/** Builds a JWT-shaped token (unsigned) with the given claims, for token parsing tests. */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.not-a-signature`;
}

/**
 * What the gateway answers to an expired or invalid token on any call: HTTP 500 with an error
 * envelope and `status: null`.
 */
export function expiredTokenAnswer(message = 'expired'): unknown {
  return {
    error: {
      error_type: 'authentication_error',
      code: 'invalid_api_credentials_provided',
      message,
    },
    status: null,
  };
}
