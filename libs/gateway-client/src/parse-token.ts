import { GatewayMalformedResponseError } from './gateway-errors';
import { gatewayErrorFromBody, isJsonObject, malformedResponse } from './parse-error';

export interface IssuedToken {
  token: string;
  /** From the JWT exp claim (ms since epoch); expiryDate is ignored: its precision trips strict parsers. */
  expiresAt: number;
  /** From the iat claim when present, else null. */
  issuedAt: number | null;
}

interface JwtTimes {
  exp: number;
  iat: number | null;
}

/** Reads exp and iat from a JWT's payload. The signature is the gateway's business, not ours. */
export function readJwtTimes(token: string): JwtTimes | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    if (!isJsonObject(payload) || typeof payload.exp !== 'number') return null;
    return { exp: payload.exp, iat: typeof payload.iat === 'number' ? payload.iat : null };
  } catch {
    return null;
  }
}

/** Success is the presence of `token`, never the HTTP status: failures come with HTTP 200 too. */
export function parseTokenResponse(httpStatus: number, body: unknown): IssuedToken {
  if (isJsonObject(body) && typeof body.token === 'string' && body.token !== '') {
    const times = readJwtTimes(body.token);
    if (!times) {
      throw malformedResponse(
        'requestToken',
        httpStatus,
        [],
        'token is not a JWT with an exp claim',
      );
    }
    return {
      token: body.token,
      expiresAt: times.exp * 1000,
      issuedAt: times.iat === null ? null : times.iat * 1000,
    };
  }
  throw gatewayErrorFromBody('requestToken', httpStatus, body) ?? malformedTokenAnswer(httpStatus);
}

function malformedTokenAnswer(httpStatus: number): GatewayMalformedResponseError {
  return malformedResponse(
    'requestToken',
    httpStatus,
    [],
    'token answer has neither token nor error',
  );
}
