import request from 'supertest';
import { RunningService, waitFor } from '../support/service';

let sequence = 0;

/** A unique shop reference per call (suites share one database per run). */
export function uniqueReference(prefix = 'T'): string {
  sequence += 1;
  return `${prefix}-${Date.now().toString(36)}-${process.pid}-${sequence}`;
}

/** A valid hosted checkout body; override any field (undefined removes it). */
export function hostedBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    amount: '1500.00',
    currency: 'KES',
    description: 'Two bags of coffee',
    reference: uniqueReference(),
    customer: { email: 'amina@example.com', phone: '+254712345678', first_name: 'Amina' },
    return_url: 'https://shop.example/thank-you',
    cancel_url: 'https://shop.example/cart',
    ...overrides,
  };
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
  return body;
}

/**
 * A phone whose prompt the sandbox leaves unanswered (last digit 3): the test decides each push's
 * outcome. The default test phone pays by itself after the sandbox's push delay, which a slow run
 * could reach before the test settles the order its own way.
 */
export const NO_ANSWER_PHONE = '+254712345673';

export function pushBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return hostedBody({ phone: '+254712345678', network: 'MPESA', ...overrides });
}

export const postCheckout = (service: RunningService, body: object, path = '/v1/checkouts') =>
  request(service.apiUrl).post(path).set(service.shopAuth).send(body);

export const getOrder = (service: RunningService, reference: string) =>
  request(service.apiUrl)
    .get(`/v1/orders/${encodeURIComponent(reference)}`)
    .set(service.shopAuth);

/**
 * The main flow on a running service with its worker, as a new deployment's smoke test runs it:
 * a hosted checkout, paid at the gateway, notified and verified to completed, then refunded in
 * full. Asserts each step.
 */
export async function payAndRefund(service: RunningService, label: string): Promise<void> {
  const body = hostedBody();
  const created = await postCheckout(service, body);
  expect(created.status).toBe(201);
  await service.sandbox.control.settle(created.body.order_tracking_id, 'completed', 'card');
  await waitFor(
    'the order completed',
    async () =>
      (await getOrder(service, String(body.reference))).body.status === 'completed' || null,
    20_000,
  );
  const refund = await request(service.apiUrl)
    .post(`/v1/admin/orders/${body.reference}/refunds`)
    .set(service.adminAuth)
    .send({ amount: body.amount, reason: label });
  expect(refund.status).toBe(201);
  expect(refund.body.refund.status).toBe('accepted');
}
