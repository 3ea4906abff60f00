import {
  GatewayAuthError,
  GatewayMalformedResponseError,
  GatewayRejectedError,
} from './gateway-errors';
import { parseIpnList, parseIpnRegistration } from './parse-ipn-registration';
import { expiredTokenAnswer, recordedResponse } from './testing/recorded-fixtures';

describe('parseIpnRegistration', () => {
  it('parses the recorded registration exactly (extra id, seven digits + Z, misspelled status field)', () => {
    const recorded = recordedResponse('register-ipn');
    expect(parseIpnRegistration(recorded.http_status, recorded.body)).toEqual({
      ipnId: '1da86d1c-1e8c-4183-bdfd-dd759463e4ce',
      url: 'http://www.padberg.com/dolores-quia-porro-debitis-architecto-quia-repellat',
      method: 'GET',
      createdAt: new Date('2024-03-18T15:25:46.265Z'),
      active: true,
    });
  });

  it('reads a re-read registration (trimmed, no Z) as the same instant, POST from notification_type', () => {
    const body = {
      url: 'https://shop.example/ipn',
      created_date: '2024-03-18T15:25:46.2652354',
      ipn_id: 'a1b2',
      notification_type: 1,
      ipn_status: 1,
      ipn_status_decription: 'Active',
      error: null,
      status: '200',
    };
    const parsed = parseIpnRegistration(200, body);
    expect(parsed.method).toBe('POST');
    expect(parsed.createdAt.toISOString()).toBe('2024-03-18T15:25:46.265Z');
  });

  it('surfaces an error body (same shape as success) as a typed error', () => {
    const body = {
      url: null,
      created_date: null,
      ipn_id: null,
      error: {
        error_type: 'invalid_request_error',
        code: 'invalid_api_request_parameters',
        message: 'ipn_notification_type length must be at most 4',
      },
      status: '500',
    };
    expect(() => parseIpnRegistration(200, body)).toThrow(GatewayRejectedError);
    expect(() => parseIpnRegistration(200, { status: '200' })).toThrow(
      GatewayMalformedResponseError,
    );
  });
});

describe('parseIpnList', () => {
  it('parses the recorded empty list', () => {
    const recorded = recordedResponse('get-ipn-list');
    expect(parseIpnList(recorded.http_status, recorded.body)).toEqual([]);
  });

  it('parses entries without notification type as method unknown', () => {
    const list = parseIpnList(200, [
      {
        url: 'https://shop.example/ipn',
        created_date: '2024-03-18T15:25:46.26',
        ipn_id: 'id-1',
        error: null,
        status: '200',
      },
    ]);
    expect(list).toEqual([
      {
        ipnId: 'id-1',
        url: 'https://shop.example/ipn',
        method: null,
        createdAt: new Date('2024-03-18T15:25:46.260Z'),
        active: true,
      },
    ]);
  });

  it('reads an error envelope instead of an array as a typed error', () => {
    expect(() => parseIpnList(500, expiredTokenAnswer())).toThrow(GatewayAuthError);
    expect(() => parseIpnList(200, { hello: 1 })).toThrow(GatewayMalformedResponseError);
  });
});
