import {
  GatewayAuthError,
  GatewayMalformedResponseError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayUnavailableError,
} from './gateway-errors';
import { gatewayErrorFromBody, parseJsonBody, splitGatewayMessages } from './parse-error';

const envelope = (
  errorType: string,
  code: string,
  message: string,
  status: string | null = '500',
) => ({
  error: { error_type: errorType, code, message },
  status,
});

describe('splitGatewayMessages', () => {
  it('splits pipe-delimited messages and drops empty segments, leading ones included', () => {
    expect(splitGatewayMessages('Consumer Key is required|Consumer Secret is required')).toEqual([
      'Consumer Key is required',
      'Consumer Secret is required',
    ]);
    expect(
      splitGatewayMessages('||Consumer Key is required| |Consumer Secret is required|'),
    ).toEqual(['Consumer Key is required', 'Consumer Secret is required']);
    expect(splitGatewayMessages('')).toEqual([]);
    expect(splitGatewayMessages(null)).toEqual([]);
  });
});

describe('gatewayErrorFromBody', () => {
  it('treats a success record whose error fields are all null as no error', () => {
    const body = {
      error: { error_type: null, code: null, message: null, call_back_url: null },
      status: '200',
    };
    expect(gatewayErrorFromBody('getTransactionStatus', 200, body)).toBeNull();
    expect(
      gatewayErrorFromBody('submitOrder', 200, { order_tracking_id: 'x', error: null }),
    ).toBeNull();
  });

  it('reads wrong credentials (HTTP 200) as an auth error with the exact code', () => {
    const error = gatewayErrorFromBody(
      'requestToken',
      200,
      envelope(
        'api_error',
        'invalid_consumer_key_or_secret_provided',
        'Invalid Access Credentials provided',
      ),
    );
    expect(error).toBeInstanceOf(GatewayAuthError);
    expect(error).toMatchObject({
      operation: 'requestToken',
      httpStatus: 200,
      errorType: 'api_error',
      code: 'invalid_consumer_key_or_secret_provided',
      messages: ['Invalid Access Credentials provided'],
    });
  });

  it('reads missing token fields and malformed JSON (leading empty segments) as a rejection', () => {
    const error = gatewayErrorFromBody(
      'requestToken',
      200,
      envelope(
        'invalid_request_error',
        'invalid_api_request_parameters',
        '||Consumer Key is required|Consumer Secret is required',
      ),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error?.code).toBe('invalid_api_request_parameters');
    expect(error?.messages).toEqual(['Consumer Key is required', 'Consumer Secret is required']);
  });

  it('keeps InvalidIpnId in PascalCase as a business rejection', () => {
    const error = gatewayErrorFromBody(
      'submitOrder',
      200,
      envelope('api_error', 'InvalidIpnId', 'Invalid notification id provided'),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error?.code).toBe('InvalidIpnId');
    expect(error?.code).not.toBe('invalid_ipn_id');
  });

  it('reads push with a foreign network as a rejection', () => {
    const error = gatewayErrorFromBody(
      'pushMobileMoney',
      200,
      envelope('api_error', 'invalid_api_request_parameters', 'Invalid Payment method provided'),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error?.messages).toEqual(['Invalid Payment method provided']);
  });

  it('parses the 401 double-encoded message down to its code', () => {
    const inner = {
      error: {
        error_type: 'authentication_error',
        code: 'invalid_api_credentials_provided',
        message: 'Invalid API credentials provided',
      },
      status: '401',
    };
    const error = gatewayErrorFromBody('registerIpn', 401, { message: JSON.stringify(inner) });
    expect(error).toBeInstanceOf(GatewayAuthError);
    expect(error).toMatchObject({
      httpStatus: 401,
      errorType: 'authentication_error',
      code: 'invalid_api_credentials_provided',
      messages: ['Invalid API credentials provided'],
    });
    // The error object itself may be what was encoded.
    const bare = gatewayErrorFromBody('listIpns', 401, { message: JSON.stringify(inner.error) });
    expect(bare?.code).toBe('invalid_api_credentials_provided');
  });

  it('reads a wrapped message with whitespace before it, and a plain message as no error', () => {
    const inner = { error: { error_type: 'api_error', code: 'too_many_requests', message: 'x' } };
    const padded = gatewayErrorFromBody('registerIpn', 200, {
      message: `\n  ${JSON.stringify(inner)}`,
    });
    expect(padded?.code).toBe('too_many_requests');
    // A status lookup's message: text, not an error (and not parsed as JSON).
    const parse = jest.spyOn(JSON, 'parse');
    expect(
      gatewayErrorFromBody('getTransactionStatus', 200, {
        message: 'Request processed successfully',
        status: '200',
      }),
    ).toBeNull();
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
  });

  it('reads the RegisterIPN 409 as rate limited, wrapped message parsed', () => {
    const inner = {
      error: { error_type: 'api_error', code: 'too_many_requests', message: 'Too many requests' },
    };
    const error = gatewayErrorFromBody('registerIpn', 409, { message: JSON.stringify(inner) });
    expect(error).toBeInstanceOf(GatewayRateLimitedError);
    expect(error?.code).toBe('too_many_requests');
    expect(gatewayErrorFromBody('registerIpn', 409, { message: 'slow down' })).toBeInstanceOf(
      GatewayRateLimitedError,
    );
  });

  it('reads an invalid or expired token (HTTP 500, status null) as an auth error', () => {
    const error = gatewayErrorFromBody(
      'getTransactionStatus',
      500,
      envelope('authentication_error', 'invalid_api_credentials_provided', 'Token expired', null),
    );
    expect(error).toBeInstanceOf(GatewayAuthError);
    const unlabeled = gatewayErrorFromBody(
      'cancelOrder',
      500,
      envelope('api_error', 'x', 'y', null),
    );
    expect(unlabeled).toBeInstanceOf(GatewayAuthError);
  });

  it('reads the push model-state 400 as a rejection with its field messages', () => {
    const body = {
      message: 'The request is invalid.',
      modelState: {
        'request.msisdn': ['The msisdn field is required.'],
        'request.amount': ['Required|Must be positive'],
      },
    };
    const error = gatewayErrorFromBody('pushMobileMoney', 400, body);
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error?.fieldMessages).toEqual({
      'request.msisdn': ['The msisdn field is required.'],
      'request.amount': ['Required', 'Must be positive'],
    });
    expect(error?.messages).toEqual([
      'The request is invalid.',
      'The msisdn field is required.',
      'Required',
      'Must be positive',
    ]);
  });

  it('turns message-only 404/405/415 bodies, HTML and empty bodies into malformed-response errors', () => {
    for (const status of [404, 405, 415]) {
      const error = gatewayErrorFromBody('getTransactionStatus', status, {
        message: 'No HTTP resource was found',
      });
      expect(error).toBeInstanceOf(GatewayMalformedResponseError);
      expect(error?.httpStatus).toBe(status);
      expect(error?.messages).toEqual(['No HTTP resource was found']);
    }
    expect(
      gatewayErrorFromBody('submitOrder', 200, parseJsonBody('<html>oops</html>')),
    ).toBeInstanceOf(GatewayMalformedResponseError);
    expect(gatewayErrorFromBody('submitOrder', 200, parseJsonBody(''))).toBeInstanceOf(
      GatewayMalformedResponseError,
    );
    expect(gatewayErrorFromBody('submitOrder', 404, parseJsonBody('Not Found'))).toBeInstanceOf(
      GatewayMalformedResponseError,
    );
  });

  it('turns 5xx without an envelope into unavailability', () => {
    const error = gatewayErrorFromBody(
      'submitOrder',
      502,
      parseJsonBody('<html>Bad gateway</html>'),
    );
    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error?.httpStatus).toBe(502);
    expect(
      gatewayErrorFromBody('submitOrder', 503, envelope('api_error', 'busy', 'Busy')),
    ).toBeInstanceOf(GatewayUnavailableError);
  });
});

describe('parseJsonBody', () => {
  it('reads an answer as sent, with NUL and lone surrogates replaced by U+FFFD', () => {
    expect(parseJsonBody('{"payment_account":"07\\u0000","description":"\\ud800ok"}')).toEqual({
      payment_account: '07\uFFFD',
      description: '\uFFFDok',
    });
    // A surrogate pair, escaped or not, is a character like any other.
    expect(parseJsonBody('{"a":"\\ud83d\\ude00","b":"😀","status_code":1}')).toEqual({
      a: '😀',
      b: '😀',
      status_code: 1,
    });
  });
});
