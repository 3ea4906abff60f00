import { Logger } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { Money } from '@app/domain';
import {
  GatewayAcknowledgement,
  GatewayAuthError,
  GatewayAccounts,
  GatewayClient,
  GatewayTimeoutError,
  RefundRequest,
} from '@app/gateway-client';
import { OrderEntity, OrderRepository, RefundEntity } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { bootstrapAdmin } from '../../operators/operator';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import { RefundApprovals } from './refund-approvals';
import { RefundInput, RefundRequestResult, RefundService } from './refund.service';
import { fakeJournal } from '../../../../../test/support/journal-fake';

const ADMIN = bootstrapAdmin('ops-alice');

/** The refund a request made at once (no approval threshold in these tests). */
function refundOf(result: RefundRequestResult) {
  if (!('refund' in result)) throw new Error('the refund waits for approval');
  return result.refund;
}
const ORDER_ID = 'c0000000-0000-4000-8000-000000000003';

/** A card payment of KES 1500.00, completed; override any field. */
function paidOrder(overrides: Partial<OrderEntity> = {}): OrderEntity {
  return Object.assign(new OrderEntity(), {
    id: ORDER_ID,
    merchantReference: 'ORDER-77',
    orderTrackingId: 'track-77',
    pushMerchantReference: null,
    kind: 'hosted',
    status: 'completed',
    amount: '1500.00',
    currency: 'KES',
    description: 'Two tickets',
    confirmationCode: '1234567890123456789012',
    paymentMethod: 'Visa',
    paymentAccount: '444444xxxxxx4444',
    paidAmount: '1500.00',
    paidCurrency: 'KES',
    paidAt: new Date('2026-02-01T10:00:00.000Z'),
    failureReason: null,
    needsReview: false,
    reviewReason: null,
    redirectUrl: null,
    businessNumber: null,
    pushAccountNumber: null,
    createdAt: new Date('2026-02-01T09:59:00.000Z'),
    updatedAt: new Date('2026-02-01T10:00:00.000Z'),
    ...overrides,
  });
}

function input(overrides: Partial<RefundInput> = {}): RefundInput {
  return {
    amount: '1500.00',
    reason: 'customer returned the tickets',
    confirmPartial: false,
    ...overrides,
  };
}

/**
 * The ports RefundService talks to, faked by hand: the order repository, the journal, the
 * gateway, and a data source whose transactions hand out one manager with an in-memory refunds
 * repository. `steps` records the order of the calls that matter.
 */
function harness(order: OrderEntity = paidOrder()) {
  const steps: string[] = [];
  const refunds = new Map<string, RefundEntity>();
  let ids = 0;
  let saveFailure: Error | null = null;

  const refundRepository = {
    create: (fields: Partial<RefundEntity>) => Object.assign(new RefundEntity(), fields),
    save: jest.fn(async (refund: RefundEntity) => {
      if (saveFailure) throw saveFailure;
      steps.push(`save:${refund.status}`);
      if (!refund.id) {
        ids += 1;
        Object.assign(refund, {
          id: `d0000000-0000-4000-8000-00000000000${ids}`,
          createdAt: new Date('2026-02-02T08:00:00.000Z'),
          gatewayStatus: null,
          gatewayMessage: null,
          resolutionNote: null,
          resolvedBy: null,
          acceptedAt: null,
          rejectedAt: null,
          reversedAt: null,
        });
      }
      refund.updatedAt = new Date();
      refunds.set(refund.id, refund);
      return refund;
    }),
    findOneByOrFail: async ({ id }: { id: string }) => {
      const refund = refunds.get(id);
      if (!refund) throw new Error(`no refund ${id}`);
      return refund;
    },
  };
  const manager = {
    getRepository: (entity: unknown) => {
      if (entity !== RefundEntity) throw new Error('only refunds are written here');
      return refundRepository;
    },
  } as unknown as EntityManager;
  const dataSource = {
    transaction: <T>(work: (m: EntityManager) => Promise<T>) => work(manager),
  } as unknown as DataSource;

  const orders = {
    findByAnyReference: jest.fn(async (reference: string) =>
      [order.merchantReference, order.orderTrackingId].includes(reference) ? order : null,
    ),
    lockById: jest.fn(async (id: string) => (id === order.id ? order : null)),
    refundFor: jest.fn(async (_orderId: string, _manager?: EntityManager) => {
      const all = [...refunds.values()];
      return all.find((refund) => refund.status !== 'rejected') ?? all.at(-1) ?? null;
    }),
  };

  const { journal, journalled, asJournal } = fakeJournal((entry) =>
    steps.push(`journal:${entry.type}`),
  );

  const gateway = {
    requestRefund: jest.fn(async (_request: RefundRequest): Promise<GatewayAcknowledgement> => {
      steps.push('gateway');
      return { accepted: true, status: '200', message: 'Refund request successfully' };
    }),
  };

  const service = new RefundService(
    dataSource,
    orders as unknown as OrderRepository,
    asJournal,
    GatewayAccounts.single(gateway as unknown as GatewayClient),
    // No threshold here: every refund is made at once (the e2e tests cover approvals).
    { needsApproval: () => false, pendingFor: async () => null } as unknown as RefundApprovals,
    {} as DoublePaymentRefunds,
  );

  return {
    service,
    order,
    steps,
    refunds,
    journalled,
    journal,
    gateway,
    orders,
    /** An earlier refund of this order, as the refunds table would hold it. */
    givenRefund: (status: RefundEntity['status']) =>
      refundRepository.save(
        Object.assign(new RefundEntity(), {
          orderId: order.id,
          confirmationCode: order.confirmationCode,
          amount: '1500.00',
          currency: 'KES',
          isPartial: false,
          reason: 'earlier',
          requestedBy: 'bob@shop.example',
          adminKeyName: 'ops-bob',
          status,
        }),
      ),
    failSavesWith: (error: Error) => (saveFailure = error),
  };
}

describe('RefundService.request', () => {
  afterEach(() => jest.restoreAllMocks());

  it('refuses to refund an order that is not completed, before recording or sending anything', async () => {
    const h = harness(paidOrder({ status: 'pending', confirmationCode: null, paidAmount: null }));

    const attempt = h.service.request('ORDER-77', input(), ADMIN);

    await expect(attempt).rejects.toBeInstanceOf(CheckoutError);
    await expect(attempt).rejects.toMatchObject({
      code: 'order_not_refundable',
      category: 'conflict',
    });
    expect(h.refunds.size).toBe(0);
    expect(h.journal.record).not.toHaveBeenCalled();
    expect(h.gateway.requestRefund).not.toHaveBeenCalled();
  });

  it('refuses an amount one cent above what was paid', async () => {
    const h = harness();

    const attempt = h.service.request('ORDER-77', input({ amount: '1500.01' }), ADMIN);

    await expect(attempt).rejects.toBeInstanceOf(CheckoutError);
    await expect(attempt).rejects.toMatchObject({
      code: 'refund_exceeds_payment',
      category: 'unprocessable',
      details: { paid_amount: '1500.00', currency: 'KES' },
    });
    expect(h.refunds.size).toBe(0);
    expect(h.gateway.requestRefund).not.toHaveBeenCalled();
  });

  it('records the refund and journals refund_requested before it calls the gateway', async () => {
    const h = harness();

    await h.service.request('track-77', input({ amount: '1500' }), ADMIN);

    expect(h.steps.slice(0, 3)).toEqual(['save:requested', 'journal:refund_requested', 'gateway']);
    expect(h.journalled[0]).toEqual({
      entry: {
        type: 'refund_requested',
        source: 'admin',
        actor: 'ops-alice',
        details: expect.objectContaining({
          amount: '1500.00',
          currency: 'KES',
          partial: false,
          requested_by: 'ops-alice',
        }),
      },
      // Nothing is announced to the shop until the gateway has answered.
      announced: null,
    });
    const [sent] = h.gateway.requestRefund.mock.calls[0];
    expect(sent.confirmationCode).toBe('1234567890123456789012');
    expect(sent.amount.equals(Money.of('1500.00', 'KES'))).toBe(true);
    expect(sent).toMatchObject({
      username: 'ops-alice',
      remarks: 'customer returned the tickets',
    });
  });

  it("moves the refund to accepted on the gateway's 200 and announces refund.accepted", async () => {
    const h = harness();

    const view = refundOf(await h.service.request('ORDER-77', input(), ADMIN));

    expect(view).toMatchObject({
      status: 'accepted',
      amount: '1500.00',
      currency: 'KES',
      gateway_status: '200',
      order_reference: 'ORDER-77',
      admin_key_name: 'ops-alice',
    });
    expect(view.accepted_at).not.toBeNull();
    const settled = h.journalled[1];
    expect(settled.entry).toMatchObject({
      type: 'refund_accepted',
      details: { refund_id: view.id, gateway_status: '200' },
    });
    expect(settled.announced?.type).toBe('refund.accepted');
    expect(settled.announced?.payload).toMatchObject({
      order: { reference: 'ORDER-77', refund: { id: view.id, status: 'accepted' } },
    });
  });

  it("moves the refund to rejected on the gateway's refusal and announces refund.rejected", async () => {
    const h = harness();
    h.gateway.requestRefund.mockResolvedValueOnce({
      accepted: false,
      status: '500',
      message: 'Refund already requested',
    });

    const view = refundOf(await h.service.request('ORDER-77', input(), ADMIN));

    expect(view).toMatchObject({
      status: 'rejected',
      gateway_status: '500',
      gateway_message: 'Refund already requested',
    });
    expect(view.rejected_at).not.toBeNull();
    expect(h.journalled[1].entry.type).toBe('refund_rejected');
    expect(h.journalled[1].announced?.type).toBe('refund.rejected');
  });

  it('leaves the refund unknown, without announcing it, when the gateway call may have landed', async () => {
    const h = harness();
    // The service warns about the unknown outcome; keep the test output quiet.
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    h.gateway.requestRefund.mockRejectedValueOnce(
      new GatewayTimeoutError({
        operation: 'requestRefund',
        httpStatus: null,
        errorType: null,
        code: null,
        messages: [],
      }),
    );

    const view = refundOf(await h.service.request('ORDER-77', input(), ADMIN));

    expect(view).toMatchObject({ status: 'unknown', gateway_status: null });
    expect(h.journalled[1]).toMatchObject({
      entry: { type: 'refund_outcome_unknown' },
      announced: null,
    });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("treats a refusal before processing (the gateway's auth error) as a rejection, its code cut to the column", async () => {
    const h = harness();
    h.gateway.requestRefund.mockRejectedValueOnce(
      new GatewayAuthError({
        operation: 'requestRefund',
        httpStatus: 401,
        errorType: 'api_error',
        code: 'invalid_api_credentials_provided',
        messages: ['Invalid Access Token'],
      }),
    );

    const view = refundOf(await h.service.request('ORDER-77', input(), ADMIN));

    expect(view).toMatchObject({
      status: 'rejected',
      // gateway_status is varchar(16): the 32-character code is cut rather than failing the save.
      gateway_status: 'invalid_api_cred',
    });
    expect(h.journalled[1].announced?.type).toBe('refund.rejected');
  });

  it('refuses a second refund of the same payment, naming the one that exists', async () => {
    const h = harness();
    const first = refundOf(await h.service.request('ORDER-77', input(), ADMIN));
    h.gateway.requestRefund.mockClear();

    const again = h.service.request('ORDER-77', input(), ADMIN);

    await expect(again).rejects.toBeInstanceOf(CheckoutError);
    await expect(again).rejects.toMatchObject({
      code: 'refund_already_requested',
      category: 'conflict',
      details: { refund: { id: first.id, status: 'accepted' } },
    });
    expect(h.gateway.requestRefund).not.toHaveBeenCalled();
    expect(h.refunds.size).toBe(1);
  });

  it('allows a new attempt after a rejected one: a rejection is no refund at the gateway', async () => {
    const h = harness();
    const rejected = await h.givenRefund('rejected');

    const view = refundOf(await h.service.request('ORDER-77', input(), ADMIN));

    expect(view.id).not.toBe(rejected.id);
    expect(view.status).toBe('accepted');
    expect(h.gateway.requestRefund).toHaveBeenCalledTimes(1);
  });

  it('reports a refund that won the unique index in a race as the refund that exists', async () => {
    const h = harness();
    // The lock saw no refund, but a concurrent request's row reached the index first.
    h.orders.refundFor.mockResolvedValueOnce(null);
    const winner = await h.givenRefund('requested');
    h.failSavesWith(
      new QueryFailedError('INSERT INTO refunds', [], {
        code: '23505',
        constraint: 'uq_refunds_order',
      } as unknown as Error),
    );

    const attempt = h.service.request('ORDER-77', input(), ADMIN);

    await expect(attempt).rejects.toMatchObject({
      code: 'refund_already_requested',
      details: { refund: { id: winner.id } },
    });
    expect(h.gateway.requestRefund).not.toHaveBeenCalled();
  });
});
