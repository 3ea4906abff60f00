import request from 'supertest';
import { DataSource } from 'typeorm';
import { IpnNotificationEntity, OrderEntity, OrderEventEntity } from '@app/persistence';
import { RunningService, waitFor } from '../support/service';

let sequence = 0;

/**
 * The resilience suites' timing: no polls to muddy the counts, a dead worker's job taken again
 * within seconds, the relay sweeping often.
 */
export const RESILIENCE_ENV = {
  POLL_SCHEDULE_SECONDS: '600',
  JOB_LOCK_MS: '1500',
  SWEEP_INTERVAL_MS: '300',
} as const;

export function reference(prefix = 'IPN'): string {
  sequence += 1;
  return `${prefix}-${Date.now().toString(36)}-${process.pid}-${sequence}`;
}

export function ipnUrl(service: RunningService, secret = service.env.IPN_PATH_SECRET): string {
  return `${service.apiUrl}/v1/ipn/${secret}`;
}

export async function hostedCheckout(
  service: RunningService,
  overrides: Record<string, unknown> = {},
): Promise<{ reference: string; orderTrackingId: string }> {
  const body = {
    amount: '1500.00',
    currency: 'KES',
    description: 'Two bags of coffee',
    reference: reference(),
    customer: { email: 'amina@example.com', phone: '+254712345678', first_name: 'Amina' },
    return_url: 'https://shop.example/thank-you',
    ...overrides,
  };
  const created = await request(service.apiUrl)
    .post('/v1/checkouts')
    .set(service.shopAuth)
    .send(body);
  if (created.status !== 201) throw new Error(`checkout ${created.status} ${created.text}`);
  return {
    reference: body.reference,
    orderTrackingId: (created.body as { order_tracking_id: string }).order_tracking_id,
  };
}

/** `count` hosted checkouts paid at the sandbox, which drops its own notifications from now on. */
export async function paidSilently(
  service: RunningService,
  count: number,
): Promise<{ reference: string; orderTrackingId: string }[]> {
  const checkouts = await Promise.all(Array.from({ length: count }, () => hostedCheckout(service)));
  await service.sandbox.control.notifications('drop');
  for (const checkout of checkouts) {
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
  }
  return checkouts;
}

export function notify(
  service: RunningService,
  fields: { trackingId: string; reference: string; type?: string },
) {
  return request(ipnUrl(service))
    .post('')
    .set('content-type', 'application/json')
    .send({
      OrderTrackingId: fields.trackingId,
      OrderMerchantReference: fields.reference,
      OrderNotificationType: fields.type ?? 'IPNCHANGE',
    });
}

export const orderOf = (dataSource: DataSource, merchantReference: string) =>
  dataSource.getRepository(OrderEntity).findOneByOrFail({ merchantReference });

export const transitionsOf = async (dataSource: DataSource, orderId: string) =>
  (
    await dataSource
      .getRepository(OrderEventEntity)
      .find({ where: { orderId, type: 'status_changed' }, order: { createdAt: 'ASC' } })
  ).map((event) => `${event.fromStatus}->${event.toStatus}`);

export const inboxOf = (dataSource: DataSource, orderTrackingId: string) =>
  dataSource.getRepository(IpnNotificationEntity).find({ where: { orderTrackingId } });

export function waitForStatus(
  dataSource: DataSource,
  merchantReference: string,
  status: string,
  timeoutMs = 20_000,
): Promise<OrderEntity> {
  return waitFor(
    `order ${merchantReference} to be ${status}`,
    async () => {
      const order = await orderOf(dataSource, merchantReference);
      return order.status === status ? order : null;
    },
    timeoutMs,
  );
}

/** The inbox rows of these checkouts' orders (their tracking ids). */
export const inboxOfEach = async (
  dataSource: DataSource,
  checkouts: { orderTrackingId: string }[],
): Promise<IpnNotificationEntity[]> =>
  (await Promise.all(checkouts.map((c) => inboxOf(dataSource, c.orderTrackingId)))).flat();

/** Waits until these checkouts' orders are completed and every notification of theirs applied. */
export async function waitUntilSettled(
  dataSource: DataSource,
  checkouts: { reference: string; orderTrackingId: string }[],
): Promise<void> {
  for (const checkout of checkouts) {
    await waitForStatus(dataSource, checkout.reference, 'completed', 20_000);
  }
  await waitFor('every notification applied', async () =>
    (await inboxOfEach(dataSource, checkouts)).every((row) => row.status === 'applied'),
  );
}

/** GetTransactionStatus calls the sandbox received for one tracking id. */
export async function lookupsOf(service: RunningService, orderTrackingId: string): Promise<number> {
  const { recent } = await service.sandbox.control.requests();
  return recent.filter(
    (call) => call.operation === 'GetTransactionStatus' && call.path.includes(orderTrackingId),
  ).length;
}
