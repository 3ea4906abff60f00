import { GatewayAuthError, GatewayMalformedResponseError } from './gateway-errors';
import { parseAcknowledgement } from './parse-acknowledgement';
import { expiredTokenAnswer } from './testing/recorded-fixtures';

describe('parseAcknowledgement', () => {
  it('reads status "200" as accepted and "500" as refused, both without an error key', () => {
    expect(
      parseAcknowledgement('cancelOrder', 200, {
        status: '200',
        message: 'Order successfully cancelled.',
      }),
    ).toEqual({
      accepted: true,
      status: '200',
      message: 'Order successfully cancelled.',
    });
    expect(
      parseAcknowledgement('requestRefund', 200, {
        status: '500',
        message: 'Refund already requested',
      }),
    ).toEqual({
      accepted: false,
      status: '500',
      message: 'Refund already requested',
    });
  });

  it('still throws for auth failures and shapeless answers', () => {
    const expired = expiredTokenAnswer();
    expect(() => parseAcknowledgement('requestRefund', 500, expired)).toThrow(GatewayAuthError);
    expect(() => parseAcknowledgement('cancelOrder', 200, { message: 'hi' })).toThrow(
      GatewayMalformedResponseError,
    );
  });
});
