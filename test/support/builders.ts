import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  ConfirmationCode,
  MerchantReference,
  Money,
  OrderTrackingId,
  PaymentOutcome,
} from '@app/domain';
import { TransactionLookup, TransactionRecord } from '@app/gateway-client';
import { OrderEntity } from '@app/persistence';

let sequence = 0;

/** The checkout the tests' orders come from: a hosted page for KES 1500.00, accepted, not paid. */
export const ACCEPTED_CHECKOUT = {
  kind: 'hosted',
  status: 'pending',
  submissionStatus: 'submitted',
  amount: '1500.00',
  currency: 'KES',
  description: 'Two tickets',
} as const satisfies Partial<OrderEntity>;

/** An order row as the checkout API leaves it after the gateway accepted it; override any field. */
export async function givenOrder(
  dataSource: DataSource,
  overrides: Partial<OrderEntity> = {},
): Promise<OrderEntity> {
  sequence += 1;
  const repository = dataSource.getRepository(OrderEntity);
  const order = repository.create({
    merchantReference: `test-${Date.now().toString(36)}-${sequence}`,
    orderTrackingId: randomUUID(),
    ...ACCEPTED_CHECKOUT,
    customer: { email: 'buyer@example.com' },
    customerEmail: 'buyer@example.com',
    ...overrides,
  });
  return repository.save(order);
}

const STATUS_CODE: Record<PaymentOutcome, number> = {
  pending: 0,
  completed: 1,
  failed: 2,
  reversed: 3,
};

/** The gateway's record of the order's payment, as the gateway client reads it; override any field. */
export function recordFor(
  order: OrderEntity,
  outcome: PaymentOutcome,
  overrides: Partial<TransactionRecord> = {},
): TransactionRecord {
  return {
    orderTrackingId: order.orderTrackingId as OrderTrackingId,
    merchantReference: order.merchantReference as MerchantReference,
    outcome,
    statusCode: STATUS_CODE[outcome],
    statusDescription: outcome.toUpperCase(),
    confirmationCode:
      outcome === 'completed' ? ('1234567890123456789012' as ConfirmationCode) : null,
    paymentMethod: 'Visa',
    paymentAccount: '444444xxxxxx4444',
    amount: Money.of(order.amount, order.currency),
    currency: order.currency,
    createdAt: new Date('2026-01-02T09:30:00.000Z'),
    description: null,
    paymentStatusCode: null,
    callbackUrl: null,
    accountNumber: null,
    raw: { status_code: STATUS_CODE[outcome], merchant_reference: order.merchantReference },
    ...overrides,
  };
}

/** A lookup result as the gateway client returns it, for the order given. */
export function lookupFor(
  order: OrderEntity,
  outcome: PaymentOutcome,
  overrides: Partial<TransactionRecord> = {},
): TransactionLookup {
  const record = recordFor(order, outcome, overrides);
  return outcome === 'pending' ? { kind: 'pending', record } : { kind: 'found', record };
}
