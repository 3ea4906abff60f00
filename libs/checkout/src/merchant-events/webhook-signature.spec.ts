import { createHmac } from 'node:crypto';
import { signatureHeader, webhookBody } from './webhook-signature';

describe('merchant webhook signature', () => {
  const body = webhookBody({
    id: '7d7c4c4e-0b7a-4f3e-9a55-2f1f0a0b0c0d',
    type: 'order.completed',
    createdAt: new Date('2026-01-02T09:30:00.000Z'),
    payload: { order: { reference: 'shop-1', amount: '1500.00' } },
  });

  it('builds the documented body', () => {
    expect(JSON.parse(body)).toEqual({
      id: '7d7c4c4e-0b7a-4f3e-9a55-2f1f0a0b0c0d',
      type: 'order.completed',
      created_at: '2026-01-02T09:30:00.000Z',
      data: { order: { reference: 'shop-1', amount: '1500.00' } },
    });
  });

  it('signs timestamp.body once per active secret', () => {
    const header = signatureHeader(body, 1767346200, ['new-secret', 'old-secret']);
    const expected = (secret: string) =>
      createHmac('sha256', secret).update(`1767346200.${body}`).digest('hex');
    expect(header).toBe(`t=1767346200,v1=${expected('new-secret')},v1=${expected('old-secret')}`);
  });

  it('signs the timestamp, so a captured signature does not fit another one', () => {
    const v1 = (header: string) => header.split(',v1=')[1];
    expect(v1(signatureHeader(body, 1, ['s']))).not.toBe(v1(signatureHeader(body, 2, ['s'])));
  });
});
