import {
  GatewayAuthError,
  GatewayMalformedResponseError,
  GatewayRejectedError,
} from './gateway-errors';
import { parseTokenResponse, readJwtTimes } from './parse-token';
import { fakeJwt, recordedResponse } from './testing/recorded-fixtures';

describe('parseTokenResponse', () => {
  it('parses the recorded sandbox token, expiry from the JWT exp claim', () => {
    const recorded = recordedResponse('request-token');
    const issued = parseTokenResponse(recorded.http_status, recorded.body);
    expect(issued.token).toBe((recorded.body as { token: string }).token);
    expect(new Date(issued.expiresAt).toISOString()).toBe('2024-03-18T16:25:45.000Z');
    expect(issued.expiresAt - (issued.issuedAt ?? 0)).toBe(3600_000);
  });

  it('ignores expiryDate: the JWT is the truth', () => {
    const token = fakeJwt({ uid: 'u', iat: 1_700_000_000, exp: 1_700_000_300 });
    const issued = parseTokenResponse(200, {
      token,
      expiryDate: '2099-01-01T00:00:00.0000000Z',
      error: null,
      status: '200',
    });
    expect(issued.expiresAt).toBe(1_700_000_300_000);
  });

  it('recognises success by the token, not the HTTP status', () => {
    const body = {
      token: null,
      expiryDate: null,
      error: {
        error_type: 'api_error',
        code: 'invalid_consumer_key_or_secret_provided',
        message: 'Invalid Access Credentials provided',
      },
      status: '500',
      message: null,
    };
    expect(() => parseTokenResponse(200, body)).toThrow(GatewayAuthError);
  });

  it('rejects missing fields with the split messages', () => {
    const body = {
      error: {
        error_type: 'invalid_request_error',
        code: 'invalid_api_request_parameters',
        message: '|Consumer Key is required|Consumer Secret is required',
      },
      status: '500',
    };
    try {
      parseTokenResponse(200, body);
      throw new Error('expected a rejection');
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayRejectedError);
      expect((error as GatewayRejectedError).messages).toEqual([
        'Consumer Key is required',
        'Consumer Secret is required',
      ]);
    }
  });

  it('refuses a token that is not a JWT, and an answer with neither token nor error', () => {
    expect(() => parseTokenResponse(200, { token: 'opaque', status: '200' })).toThrow(
      GatewayMalformedResponseError,
    );
    expect(() => parseTokenResponse(200, { status: '200' })).toThrow(GatewayMalformedResponseError);
    expect(readJwtTimes(fakeJwt({ uid: 'x' }))).toBeNull();
  });
});
