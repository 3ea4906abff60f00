import { Webhook } from 'standardwebhooks';
import { signatureHeader, webhookBody, WEBHOOK_HEADERS } from './webhook-signature';

const NEW_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

describe('merchant webhook signature (Standard Webhooks v1)', () => {
  const event = {
    id: '7d7c4c4e-0b7a-4f3e-9a55-2f1f0a0b0c0d',
    type: 'order.completed',
    createdAt: new Date('2026-01-02T09:30:00.000Z'),
    payload: { order: { reference: 'shop-1', amount: '1500.00' } },
  };
  const body = webhookBody(event);
  const now = Math.floor(Date.now() / 1000);
  const headers = (signature: string, timestamp = now) => ({
    [WEBHOOK_HEADERS.id]: event.id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signature,
  });

  it('builds the documented body: type, timestamp, data', () => {
    expect(JSON.parse(body)).toEqual({
      type: 'order.completed',
      timestamp: '2026-01-02T09:30:00.000Z',
      data: { order: { reference: 'shop-1', amount: '1500.00' } },
    });
  });

  it('is verified by the official library with either secret of a rotation', () => {
    const signature = signatureHeader(event.id, now, body, [NEW_SECRET, OLD_SECRET]);
    expect(signature.split(' ')).toHaveLength(2);
    for (const secret of [NEW_SECRET, OLD_SECRET]) {
      expect(new Webhook(secret).verify(body, headers(signature))).toEqual(JSON.parse(body));
    }
  });

  it('is refused by the official library for another secret, another id or a changed body', () => {
    const signature = signatureHeader(event.id, now, body, [NEW_SECRET]);
    expect(() => new Webhook(OLD_SECRET).verify(body, headers(signature))).toThrow();
    expect(() =>
      new Webhook(NEW_SECRET).verify(body, {
        ...headers(signature),
        [WEBHOOK_HEADERS.id]: 'another-event',
      }),
    ).toThrow();
    expect(() =>
      new Webhook(NEW_SECRET).verify(body.replace('1500.00', '15.00'), headers(signature)),
    ).toThrow();
  });

  it('signs the timestamp: a stale one is refused by the official library', () => {
    const stale = now - 3600;
    const signature = signatureHeader(event.id, stale, body, [NEW_SECRET]);
    expect(() => new Webhook(NEW_SECRET).verify(body, headers(signature, stale))).toThrow(
      /timestamp/i,
    );
  });

  it('refuses to sign with a secret that is not whsec_ base64', () => {
    expect(() => signatureHeader(event.id, now, body, ['plain-secret'])).toThrow(/whsec_/);
  });
});
