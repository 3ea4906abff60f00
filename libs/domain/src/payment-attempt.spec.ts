import { attemptGatewayReference, attemptRefusal } from './payment-attempt';

describe('attemptGatewayReference', () => {
  const orderId = '9f3c1b2a-0d4e-4f5a-8b6c-7d8e9f0a1b2c';

  it("sends a first attempt under the shop's reference, later ones under their own ids", () => {
    expect(attemptGatewayReference('ORDER-2041', 1, orderId)).toBe('ORDER-2041');
    expect(attemptGatewayReference('ORDER-2041', 2, orderId)).toBe('ORDER-2041-a2-9f3c1b');
    expect(attemptGatewayReference('ORDER-2041', 12, orderId)).toBe('ORDER-2041-a12-9f3c1b');
  });

  it("keeps within the gateway's 50 characters and the shop's alphabet", () => {
    const long = 'R'.repeat(50);
    for (const attempt of [2, 9, 10, 100]) {
      const id = attemptGatewayReference(long, attempt, orderId, 2);
      expect(id.length).toBeLessThanOrEqual(50);
      expect(id).toMatch(/^[A-Za-z0-9._:/-]{1,50}$/);
      expect(id.endsWith(`-a${attempt}-${'9f3c1b2a0d4e4f'}`)).toBe(true);
    }
  });

  it('gives another id for another salt, order or attempt', () => {
    const ids = new Set([
      attemptGatewayReference('X', 2, orderId),
      attemptGatewayReference('X', 2, orderId, 1),
      attemptGatewayReference('X', 3, orderId),
      attemptGatewayReference('X', 2, '0a1b2c3d-0000-4000-8000-000000000000'),
    ]);
    expect(ids.size).toBe(4);
  });
});

describe('attemptRefusal', () => {
  it('lets a failed order, and a pending prompt, be tried again', () => {
    expect(attemptRefusal('failed', 'hosted', true)).toBeNull();
    expect(attemptRefusal('failed', 'mobile_money', true)).toBeNull();
    expect(attemptRefusal('pending', 'mobile_money', true)).toBeNull();
  });

  it('refuses a paid, closed or still payable order, with the reason', () => {
    expect(attemptRefusal('completed', 'hosted', true)).toBe('order_paid');
    expect(attemptRefusal('cancelled', 'hosted', true)).toBe('order_closed');
    expect(attemptRefusal('expired', 'mobile_money', true)).toBe('order_closed');
    expect(attemptRefusal('reversed', 'hosted', true)).toBe('order_closed');
    expect(attemptRefusal('pending', 'hosted', true)).toBe('attempt_still_payable');
    expect(attemptRefusal('pending', 'mobile_money', false)).toBe('order_not_submitted');
  });
});
