import { GatewayMalformedResponseError, GatewayRejectedError } from './gateway-errors';
import {
  parsePushResponse,
  parseSubmitOrderResponse,
  REDIRECT_URL_MAX_LENGTH,
} from './parse-order';
import { recordedResponse } from './testing/recorded-fixtures';

describe('parseSubmitOrderResponse', () => {
  it('parses the recorded order answer', () => {
    const recorded = recordedResponse('submit-order-request');
    expect(parseSubmitOrderResponse(recorded.http_status, recorded.body)).toEqual({
      orderTrackingId: '96a5e1d9-f711-4423-82ce-dd758f972713',
      merchantReference: '98771cd2-e240-3656-9e10-eb2f3d687ab2',
      redirectUrl:
        'https://cybqa.pesapal.com/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=96a5e1d9-f711-4423-82ce-dd758f972713',
    });
  });

  it('reads InvalidIpnId (HTTP 200) as a rejection with the exact code', () => {
    const body = {
      order_tracking_id: null,
      merchant_reference: null,
      redirect_url: null,
      error: { error_type: 'api_error', code: 'InvalidIpnId', message: 'Invalid notification id' },
      status: '500',
    };
    expect(() => parseSubmitOrderResponse(200, body)).toThrow(
      expect.objectContaining({ code: 'InvalidIpnId', operation: 'submitOrder' }),
    );
    expect(() => parseSubmitOrderResponse(200, body)).toThrow(GatewayRejectedError);
  });

  it('refuses a success without the fields we need', () => {
    expect(() =>
      parseSubmitOrderResponse(200, { order_tracking_id: 'x', error: null, status: '200' }),
    ).toThrow(GatewayMalformedResponseError);
  });

  it('refuses a redirect_url longer than a browser takes (2048 characters)', () => {
    const answer = (redirect_url: string) => ({
      order_tracking_id: '96a5e1d9-f711-4423-82ce-dd758f972713',
      merchant_reference: 'ORDER-1',
      redirect_url,
      error: null,
      status: '200',
    });
    const page = 'https://pay.example/?t=';
    expect(
      parseSubmitOrderResponse(200, answer(page.padEnd(REDIRECT_URL_MAX_LENGTH, 'x'))).redirectUrl,
    ).toHaveLength(REDIRECT_URL_MAX_LENGTH);
    expect(() =>
      parseSubmitOrderResponse(200, answer(page.padEnd(REDIRECT_URL_MAX_LENGTH + 1, 'x'))),
    ).toThrow(GatewayMalformedResponseError);
  });
});

describe('parsePushResponse', () => {
  it('keeps the generated merchant_reference apart from ours', () => {
    const body = {
      order_tracking_id: 'b5e5c1f0-0000-4000-8000-000000000001',
      merchant_reference: 'PUSH-7781',
      business_number: '220220',
      account_number: 'ACC123',
      redirect_url: null,
      error: null,
      status: '200',
    };
    expect(parsePushResponse(200, body)).toEqual({
      orderTrackingId: 'b5e5c1f0-0000-4000-8000-000000000001',
      pushMerchantReference: 'PUSH-7781',
      businessNumber: '220220',
      accountNumber: 'ACC123',
    });
  });

  it('reads an invalid payment method (HTTP 200) and the model-state 400 as rejections', () => {
    const invalidMethod = {
      error: {
        error_type: 'api_error',
        code: 'invalid_api_request_parameters',
        message: 'Invalid Payment method provided',
      },
      status: '500',
    };
    expect(() => parsePushResponse(200, invalidMethod)).toThrow(GatewayRejectedError);
    const modelState = {
      message: 'The request is invalid.',
      modelState: { 'request.msisdn': ['The msisdn field is required.'] },
    };
    expect(() => parsePushResponse(400, modelState)).toThrow(
      expect.objectContaining({
        fieldMessages: { 'request.msisdn': ['The msisdn field is required.'] },
      }),
    );
  });
});
