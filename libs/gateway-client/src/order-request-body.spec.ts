import { IpnId, MerchantReference, Money } from '@app/domain';
import { GatewayRequestInvalidError } from './gateway-errors';
import { OrderRequest, PushRequest } from './gateway-types';
import { buildOrderBody, buildPushBody, RequestRules } from './order-request-body';

const rules: RequestRules = {
  productionMode: false,
  mobileMoneyNetworks: ['MPESA', 'AIRTELKE'],
  now: new Date('2025-06-10T12:00:00Z'),
};

const order = (overrides: Partial<OrderRequest> = {}): OrderRequest => ({
  merchantReference: MerchantReference('ORDER-1001'),
  amount: Money.of('1500.10', 'KES'),
  description: 'Two bags of coffee',
  callbackUrl: 'https://shop.example/return',
  notificationId: IpnId('1da86d1c-1e8c-4183-bdfd-dd759463e4ce'),
  billingAddress: { email: 'amina@example.com', firstName: 'Amina', countryCode: 'KE' },
  ...overrides,
});

function invalidField(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    if (error instanceof GatewayRequestInvalidError) return error.field;
    throw error;
  }
  throw new Error('expected GatewayRequestInvalidError');
}

describe('buildOrderBody', () => {
  it('checks and writes a request once under the same rules, again under others', () => {
    const request = order({ callbackUrl: 'http://shop.example/return' });
    const first = buildOrderBody(request, rules);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      expect(buildOrderBody(request, { ...rules })).toBe(first);
      expect(stringify).not.toHaveBeenCalled();
      // Production refuses the http callback the sandbox rules accepted: checked again.
      expect(invalidField(() => buildOrderBody(request, { ...rules, productionMode: true }))).toBe(
        'callbackUrl',
      );
      // Another day is another check (a subscription's start must still be in the future).
      buildOrderBody(request, { ...rules, now: new Date('2025-06-11T12:00:00Z') });
      expect(stringify).toHaveBeenCalledTimes(1);
      // The same object as a push is a push body, never the order's.
      const push = { ...request, msisdn: '254712345678', network: 'MPESA' } as PushRequest;
      buildOrderBody(push, rules);
      expect(JSON.parse(buildPushBody(push, rules))).toMatchObject({ payment_method: 'MPESA' });
    } finally {
      stringify.mockRestore();
    }
  });

  it('writes the snake_case wire shape with the amount as an exact JSON number', () => {
    const text = buildOrderBody(
      order({
        amount: Money.of('9999999999999.99', 'KES'),
        cancellationUrl: 'https://shop.example/cancel',
        branch: 'Westlands',
        redirectMode: 'TOP_WINDOW',
      }),
      rules,
    );
    expect(text).toContain('"amount":9999999999999.99,');
    expect(JSON.parse(text)).toEqual({
      amount: 9999999999999.99,
      id: 'ORDER-1001',
      currency: 'KES',
      description: 'Two bags of coffee',
      callback_url: 'https://shop.example/return',
      cancellation_url: 'https://shop.example/cancel',
      notification_id: '1da86d1c-1e8c-4183-bdfd-dd759463e4ce',
      billing_address: {
        email_address: 'amina@example.com',
        first_name: 'Amina',
        country_code: 'KE',
      },
      branch: 'Westlands',
      redirect_mode: 'TOP_WINDOW',
    });
    expect(buildOrderBody(order({ amount: Money.of('0.1', 'KES') }), rules)).toContain(
      '"amount":0.10,',
    );
  });

  it('sends an empty billing address object, which the gateway requires', () => {
    expect(
      JSON.parse(buildOrderBody(order({ billingAddress: {} }), rules)).billing_address,
    ).toEqual({});
  });

  it('converts subscription dates to dd-MM-yyyy and uppercases the frequency', () => {
    const body = JSON.parse(
      buildOrderBody(
        order({
          subscription: {
            accountNumber: 'SUB-42',
            startDate: '2025-07-01',
            endDate: new Date('2026-06-30T12:00:00Z'),
            frequency: 'monthly',
          },
        }),
        rules,
      ),
    );
    expect(body.account_number).toBe('SUB-42');
    expect(body.subscription_details).toEqual({
      start_date: '01-07-2025',
      end_date: '30-06-2026',
      frequency: 'MONTHLY',
    });
  });

  it('refuses what the gateway would silently accept or decline generically', () => {
    expect(
      invalidField(() =>
        buildOrderBody(order({ merchantReference: MerchantReference('x'.repeat(51)) }), rules),
      ),
    ).toBe('merchantReference');
    expect(
      invalidField(() =>
        buildOrderBody(order({ merchantReference: MerchantReference('') }), rules),
      ),
    ).toBe('merchantReference');
    expect(
      buildOrderBody(order({ merchantReference: MerchantReference('x'.repeat(50)) }), rules),
    ).toContain('x'.repeat(50));
    expect(invalidField(() => buildOrderBody(order({ description: 'd'.repeat(101) }), rules))).toBe(
      'description',
    );
    expect(invalidField(() => buildOrderBody(order({ amount: Money.of('0', 'KES') }), rules))).toBe(
      'amount',
    );
    expect(
      invalidField(() => buildOrderBody(order({ callbackUrl: 'shop.example/return' }), rules)),
    ).toBe('callbackUrl');
    expect(
      invalidField(() => buildOrderBody(order({ billingAddress: { countryCode: 'KEN' } }), rules)),
    ).toBe('billingAddress.countryCode');
    const sub = { accountNumber: 'SUB-42', endDate: '2026-01-01', frequency: 'DAILY' as const };
    // Today (East Africa) is not in the future; ISO timestamps and dd-MM-yyyy input are read or refused, never passed through.
    expect(
      invalidField(() =>
        buildOrderBody(order({ subscription: { ...sub, startDate: '2025-06-10' } }), rules),
      ),
    ).toBe('subscription.startDate');
    expect(
      invalidField(() =>
        buildOrderBody(order({ subscription: { ...sub, startDate: '11-06-2025' } }), rules),
      ),
    ).toBe('subscription.startDate');
    expect(
      invalidField(() =>
        buildOrderBody(
          order({ subscription: { ...sub, startDate: '2025-07-01', endDate: '2025-07-01' } }),
          rules,
        ),
      ),
    ).toBe('subscription.endDate');
    expect(
      invalidField(() =>
        buildOrderBody(
          order({
            subscription: { ...sub, startDate: '2025-07-01', frequency: 'HOURLY' as 'DAILY' },
          }),
          rules,
        ),
      ),
    ).toBe('subscription.frequency');
  });

  it('requires HTTPS URLs in production mode only', () => {
    const plain = order({ callbackUrl: 'http://shop.example/return' });
    expect(buildOrderBody(plain, rules)).toContain('http://shop.example/return');
    expect(invalidField(() => buildOrderBody(plain, { ...rules, productionMode: true }))).toBe(
      'callbackUrl',
    );
    expect(
      invalidField(() =>
        buildOrderBody(order({ cancellationUrl: 'http://x.example' }), {
          ...rules,
          productionMode: true,
        }),
      ),
    ).toBe('cancellationUrl');
  });
});

describe('buildPushBody', () => {
  const push = (overrides: Partial<PushRequest> = {}): PushRequest => ({
    ...order(),
    msisdn: '+254712345678',
    network: 'mpesa',
    ...overrides,
  });

  it('adds msisdn and the configured spelling of the network as payment_method', () => {
    const text = buildPushBody(push(), rules);
    expect(text.startsWith('{"amount":1500.10,')).toBe(true);
    expect(JSON.parse(text)).toMatchObject({
      msisdn: '+254712345678',
      payment_method: 'MPESA',
      id: 'ORDER-1001',
    });
  });

  it('checks the msisdn shape and the network list before any call', () => {
    for (const msisdn of ['0712', '+25471234567890123', '07123 45678', 'abc123456789']) {
      expect(invalidField(() => buildPushBody(push({ msisdn }), rules))).toBe('msisdn');
    }
    expect(buildPushBody(push({ msisdn: '254712345678' }), rules)).toContain(
      '"msisdn":"254712345678"',
    );
    expect(invalidField(() => buildPushBody(push({ network: 'TIGOTZ' }), rules))).toBe('network');
  });
});
