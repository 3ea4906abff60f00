import { createHmac } from 'node:crypto';
import { signatureHeader } from '@app/checkout/merchant-events/webhook-signature';
import { signWebhook, WebhookRefused, WebhookVerifier } from './webhooks';

// The Standard Webhooks specification's example: secret, id, timestamp, body and signature.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

const at = (seconds: number) => new Date(seconds * 1000);
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookRefused) return error.reason;
    throw error;
  }
  return 'accepted';
};

describe('merchant webhooks in the shop client', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: at(VECTOR.timestamp + 30) });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('signs the specification vector to its published signature (and to an independent HMAC)', () => {
    const headers = signWebhook(VECTOR.secret, VECTOR.id, at(VECTOR.timestamp), VECTOR.body);
    expect(headers).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    });
    const key = Buffer.from(VECTOR.secret.slice('whsec_'.length), 'base64');
    const hmac = createHmac('sha256', key)
      .update(`${VECTOR.id}.${VECTOR.timestamp}.${VECTOR.body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${hmac}`);
  });

  it('verifies the vector and what the service itself signs, with either secret of a rotation', () => {
    const verifier = new WebhookVerifier({ secrets: VECTOR.secret });
    const verified = verifier.verify({
      body: VECTOR.body,
      headers: {
        'webhook-id': VECTOR.id,
        'webhook-timestamp': String(VECTOR.timestamp),
        'webhook-signature': VECTOR.signature,
      },
    });
    expect(verified).toEqual({
      id: VECTOR.id,
      timestamp: at(VECTOR.timestamp),
      payload: { test: 2432232314 },
    });

    const body = JSON.stringify({ type: 'order.completed', timestamp: 'x', data: { ok: true } });
    const now = VECTOR.timestamp + 30;
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(now),
      // The service signs with the new and the old secret during a rotation.
      'webhook-signature': signatureHeader('evt_1', now, body, [SECRET, OLD_SECRET]),
    };
    expect(new WebhookVerifier({ secrets: OLD_SECRET }).verify({ body, headers }).payload).toEqual(
      JSON.parse(body),
    );
    expect(new WebhookVerifier({ secrets: [SECRET] }).verify({ body, headers }).id).toBe('evt_1');
  });

  it('refuses a bad signature, a changed body, an old or future timestamp, a replay and missing headers', () => {
    const verifier = new WebhookVerifier({ secrets: SECRET });
    const now = VECTOR.timestamp + 30;
    const body = '{"type":"order.completed"}';
    const signed = signWebhook(SECRET, 'evt_2', at(now), body);
    const forged = signWebhook(OLD_SECRET, 'evt_2', at(now), body);

    expect(refusal(() => verifier.verify({ body, headers: forged }))).toBe('signature');
    expect(refusal(() => verifier.verify({ body: `${body} `, headers: signed }))).toBe('signature');
    const old = signWebhook(SECRET, 'evt_3', at(now - 6 * 60), body);
    expect(refusal(() => verifier.verify({ body, headers: old }))).toBe('timestamp');
    const future = signWebhook(SECRET, 'evt_4', at(now + 6 * 60), body);
    expect(refusal(() => verifier.verify({ body, headers: future }))).toBe('timestamp');
    expect(refusal(() => verifier.verify({ body, headers: { 'webhook-id': 'evt_5' } }))).toBe(
      'headers',
    );

    const notJson = signWebhook(SECRET, 'evt_6', at(now), 'not json');
    expect(refusal(() => verifier.verify({ body: 'not json', headers: notJson }))).toBe('body');

    expect(refusal(() => verifier.verify({ body, headers: signed }))).toBe('accepted');
    expect(refusal(() => verifier.verify({ body, headers: signed }))).toBe('replayed');
    // A shorter replay window is not taken: an id is remembered as long as its timestamp could
    // still be accepted, and after that the timestamp refuses the replay.
    const shortMemory = new WebhookVerifier({ secrets: SECRET, replayWindowMs: 1_000 });
    expect(refusal(() => shortMemory.verify({ body, headers: signed }))).toBe('accepted');
    jest.setSystemTime(at(now + 4 * 60));
    expect(refusal(() => shortMemory.verify({ body, headers: signed }))).toBe('replayed');
    jest.setSystemTime(at(now + 11 * 60));
    expect(refusal(() => shortMemory.verify({ body, headers: signed }))).toBe('timestamp');
  });
});
