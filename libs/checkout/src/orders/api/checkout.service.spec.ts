import { checkoutAnswerOf } from './checkout-answers';
import { HttpException } from '@nestjs/common';
import { loadServiceConfig } from '@app/config';
import { IpnId, Money, OrderTrackingId, PushMerchantReference } from '@app/domain';
import {
  GatewayAccounts,
  GatewayClient,
  GatewayRejectedError,
  GatewayRequestInvalidError,
  OrderRequest,
  PushedOrder,
  PushRequest,
  SubmittedOrder,
} from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import type { IpnRegistrationService } from '../ipn-registration.service';
import { CheckoutService, generatedReference, RETURN_PATH } from './checkout.service';
import { CheckoutSubmission, NewOrder, ReferenceTakenError } from './checkout-submission';
import { CreateCheckoutDto, CreateMobileMoneyCheckoutDto } from './dto/create-checkout.dto';

const CONFIG = loadServiceConfig({ PUBLIC_BASE_URL: 'https://shop-api.example' });
const CREATED_AT = new Date('2026-03-01T08:00:00.000Z');

function hostedDto(overrides: Partial<CreateCheckoutDto> = {}): CreateCheckoutDto {
  return {
    amount: '1500',
    currency: 'KES',
    description: 'Two bags of coffee',
    reference: 'ORDER-2041',
    customer: { email: 'amina@example.com', first_name: 'Amina', country_code: 'ke' },
    ...overrides,
  };
}

function pushDto(
  overrides: Partial<CreateMobileMoneyCheckoutDto> = {},
): CreateMobileMoneyCheckoutDto {
  return { ...hostedDto(), phone: '+254712345678', network: 'mpesa', ...overrides };
}

/** An order row as another request left it; only the fields the reuse rules read matter. */
function existingOrder(overrides: Partial<OrderEntity> = {}): OrderEntity {
  return Object.assign(new OrderEntity(), {
    id: 'a0000000-0000-4000-8000-000000000001',
    merchantReference: 'ORDER-2041',
    kind: 'hosted',
    status: 'pending',
    submissionStatus: 'submitted',
    amount: '1500.00',
    currency: 'KES',
    gatewayAccount: 'default',
    orderTrackingId: 'track-original',
    redirectUrl: 'https://pay.example/original',
    gatewayError: null,
    failureReason: null,
    createdAt: CREATED_AT,
    ...overrides,
  });
}

function rejection(code: string, messages: string[] = ['refused']): GatewayRejectedError {
  return new GatewayRejectedError({
    operation: 'submitOrder',
    httpStatus: 200,
    errorType: 'api_error',
    code,
    messages,
  });
}

/**
 * Hand-written ports. `steps` records the order of the calls that matter (row before gateway);
 * the submission fake keeps the row the way CheckoutSubmission would describe it.
 */
function harness() {
  const steps: string[] = [];
  const recorded: { fields: NewOrder; actor: string }[] = [];
  let referenceTaken = false;

  const submission = {
    record: jest.fn(async (fields: NewOrder, actor: string) => {
      steps.push('record');
      if (referenceTaken) throw new ReferenceTakenError(fields.merchantReference ?? '');
      recorded.push({ fields, actor });
      return Object.assign(new OrderEntity(), fields, {
        id: 'b0000000-0000-4000-8000-000000000002',
        status: 'pending',
        submissionStatus: 'submitting',
        orderTrackingId: null,
        redirectUrl: null,
        pushMerchantReference: null,
        businessNumber: null,
        pushAccountNumber: null,
        createdAt: CREATED_AT,
      });
    }),
    completeHosted: jest.fn(async (order: OrderEntity, submitted: SubmittedOrder) => {
      steps.push('completeHosted');
      return checkoutAnswerOf(
        Object.assign(new OrderEntity(), order, {
          orderTrackingId: submitted.orderTrackingId,
          redirectUrl: submitted.redirectUrl,
          submissionStatus: 'submitted',
        }),
      );
    }),
    completePush: jest.fn(async (order: OrderEntity, pushed: PushedOrder) => {
      steps.push('completePush');
      return checkoutAnswerOf(
        Object.assign(new OrderEntity(), order, {
          orderTrackingId: pushed.orderTrackingId,
          pushMerchantReference: pushed.pushMerchantReference,
          businessNumber: pushed.businessNumber,
          pushAccountNumber: pushed.accountNumber,
          submissionStatus: 'submitted',
        }),
      );
    }),
    markFailed: jest.fn(async (order: OrderEntity, _error: unknown) => {
      steps.push('markFailed');
      return order;
    }),
  };

  const gateway = {
    submitOrder: jest.fn(async (request: OrderRequest): Promise<SubmittedOrder> => {
      steps.push('submitOrder');
      return {
        orderTrackingId: OrderTrackingId('track-1'),
        merchantReference: request.merchantReference,
        redirectUrl: 'https://pay.example/iframe/track-1',
      };
    }),
    pushMobileMoney: jest.fn(async (_request: PushRequest): Promise<PushedOrder> => {
      steps.push('pushMobileMoney');
      return {
        orderTrackingId: OrderTrackingId('track-push'),
        pushMerchantReference: PushMerchantReference('PUSH-77'),
        businessNumber: '174379',
        accountNumber: 'ACC-77',
      };
    }),
  };

  const orders = {
    findByMerchantReference: jest.fn(
      async (_reference: string): Promise<OrderEntity | null> => null,
    ),
    findById: jest.fn(async (_id: string): Promise<OrderEntity | null> => null),
  };

  const ipn = {
    currentIpnId: jest.fn(async () => IpnId('ipn-1')),
    replaceRejected: jest.fn(async (_account: string, _rejected: IpnId) => IpnId('ipn-2')),
  };

  const service = new CheckoutService(
    GatewayAccounts.single(gateway as unknown as GatewayClient),
    submission as unknown as CheckoutSubmission,
    orders as unknown as OrderRepository,
    ipn as unknown as IpnRegistrationService,
    CONFIG,
  );

  /** The next record() hits the unique index, and `twin` is the order holding the reference. */
  const referenceHeldBy = (twin: OrderEntity) => {
    referenceTaken = true;
    orders.findByMerchantReference.mockResolvedValue(twin);
  };

  return { service, steps, recorded, submission, gateway, orders, ipn, referenceHeldBy };
}

describe('CheckoutService', () => {
  it('records a hosted order before creating it at the gateway, then answers 201 with the redirect', async () => {
    const h = harness();

    const result = await h.service.createHosted(hostedDto(), 'shop-key');

    expect(h.steps).toEqual(['record', 'submitOrder', 'completeHosted']);
    // The row holds the canonical decimal of the amount the shop sent ("1500" → "1500.00").
    expect(h.recorded).toEqual([
      {
        actor: 'shop-key',
        fields: expect.objectContaining({
          merchantReference: 'ORDER-2041',
          kind: 'hosted',
          amount: '1500.00',
          currency: 'KES',
          customerEmail: 'amina@example.com',
          customer: expect.objectContaining({ firstName: 'Amina', countryCode: 'KE' }),
          msisdn: null,
          network: null,
        }),
      },
    ]);
    const sent = h.gateway.submitOrder.mock.calls[0][0];
    expect(sent.merchantReference).toBe('ORDER-2041');
    expect(sent.amount.equals(Money.of('1500.00', 'KES'))).toBe(true);
    expect(sent.notificationId).toBe('ipn-1');
    expect(sent.callbackUrl).toBe(`https://shop-api.example${RETURN_PATH}`);
    expect(sent.cancellationUrl).toBe(`https://shop-api.example${RETURN_PATH}?cancelled=1`);
    expect(result).toEqual({
      status: 201,
      body: {
        reference: 'ORDER-2041',
        order_tracking_id: 'track-1',
        status: 'pending',
        redirect_url: 'https://pay.example/iframe/track-1',
        amount: '1500.00',
        currency: 'KES',
        created_at: CREATED_AT.toISOString(),
      },
    });
  });

  it("uses the body's reference, else the caller's, else a generated chk_ reference", async () => {
    const h = harness();

    await h.service.createHosted(hostedDto({ reference: 'FROM-BODY' }), 'shop', 'FROM-CALLER');
    await h.service.createHosted(hostedDto({ reference: undefined }), 'shop', 'FROM-CALLER');
    await h.service.createHosted(hostedDto({ reference: undefined }), 'shop');

    const references = h.recorded.map(({ fields }) => fields.merchantReference);
    expect(references.slice(0, 2)).toEqual(['FROM-BODY', 'FROM-CALLER']);
    expect(references[2]).toMatch(/^chk_[0-9a-f]{24}$/);
    // Generated references never repeat, so two requests without one never collide.
    expect(generatedReference()).not.toBe(generatedReference());
  });

  it('refuses a request the gateway client would refuse before writing anything', async () => {
    const h = harness();

    const attempt = h.service.createHosted(hostedDto({ description: 'x'.repeat(101) }), 'shop');

    await expect(attempt).rejects.toBeInstanceOf(GatewayRequestInvalidError);
    expect(h.steps).toEqual([]);
  });

  it("marks the order failed on the gateway's business rejection and rethrows the gateway's typed error", async () => {
    const h = harness();
    const refusal = rejection('invalid_amount', ['amount below the minimum']);
    h.gateway.submitOrder.mockRejectedValueOnce(refusal);

    const attempt = h.service.createHosted(hostedDto(), 'shop');

    // A typed error the exception filter maps to 502; nothing HTTP-shaped leaves the service.
    await expect(attempt).rejects.toBe(refusal);
    await expect(attempt).rejects.not.toBeInstanceOf(HttpException);
    expect(h.submission.markFailed).toHaveBeenCalledTimes(1);
    expect(h.submission.markFailed).toHaveBeenCalledWith(
      expect.objectContaining({ merchantReference: 'ORDER-2041', submissionStatus: 'submitting' }),
      refusal,
    );
    expect(h.submission.completeHosted).not.toHaveBeenCalled();
  });

  it('replaces a notification_id the gateway no longer knows and sends the order once more', async () => {
    const h = harness();
    h.gateway.submitOrder.mockRejectedValueOnce(rejection('InvalidIpnId'));

    const result = await h.service.createHosted(hostedDto(), 'shop');

    expect(h.ipn.replaceRejected).toHaveBeenCalledWith('default', 'ipn-1');
    const ids = h.gateway.submitOrder.mock.calls.map(([request]) => request.notificationId);
    expect(ids).toEqual(['ipn-1', 'ipn-2']);
    // The refused id made no order at the gateway: the retry is not a failure of the checkout.
    expect(h.submission.markFailed).not.toHaveBeenCalled();
    expect(result.status).toBe(201);
  });

  it('pushes a mobile-money prompt on the configured network and answers the manual-payment details', async () => {
    const h = harness();

    const result = await h.service.createMobileMoney(pushDto(), 'shop');

    expect(h.steps).toEqual(['record', 'pushMobileMoney', 'completePush']);
    expect(h.gateway.submitOrder).not.toHaveBeenCalled();
    const pushed = h.gateway.pushMobileMoney.mock.calls[0][0];
    // The shop may write the network in any case; the gateway gets the configured spelling, and
    // the phone in the form push takes.
    expect(pushed).toMatchObject({ msisdn: '254712345678', network: 'MPESA' });
    expect(h.recorded[0].fields).toMatchObject({
      kind: 'mobile_money',
      msisdn: '254712345678',
      network: 'MPESA',
    });
    expect(result).toEqual({
      status: 201,
      body: {
        reference: 'ORDER-2041',
        order_tracking_id: 'track-push',
        push_merchant_reference: 'PUSH-77',
        status: 'pending',
        business_number: '174379',
        account_number: 'ACC-77',
        amount: '1500.00',
        currency: 'KES',
        created_at: CREATED_AT.toISOString(),
      },
    });
  });

  describe('a reference that already names an order', () => {
    it('answers the same checkout again with 200 and no second gateway call', async () => {
      const h = harness();
      h.referenceHeldBy(existingOrder());

      // "1500" and the stored "1500.00" are the same amount.
      const result = await h.service.createHosted(hostedDto({ amount: '1500' }), 'shop');

      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        reference: 'ORDER-2041',
        order_tracking_id: 'track-original',
        redirect_url: 'https://pay.example/original',
      });
      expect(h.gateway.submitOrder).not.toHaveBeenCalled();
    });

    it.each([
      ['another amount, by one cent', hostedDto({ amount: '1500.01' }), 'hosted'],
      ['another currency', hostedDto({ currency: 'UGX' }), 'hosted'],
      ['another kind of checkout', pushDto(), 'mobile_money'],
    ])('is a reference_in_use conflict for %s', async (_case, dto, kind) => {
      const h = harness();
      h.referenceHeldBy(existingOrder());

      const attempt =
        kind === 'hosted'
          ? h.service.createHosted(dto, 'shop')
          : h.service.createMobileMoney(dto as CreateMobileMoneyCheckoutDto, 'shop');

      await expect(attempt).rejects.toBeInstanceOf(CheckoutError);
      await expect(attempt).rejects.toMatchObject({
        code: 'reference_in_use',
        category: 'conflict',
        details: { existing: { kind: 'hosted', amount: '1500.00', currency: 'KES' } },
      });
      expect(h.gateway.submitOrder).not.toHaveBeenCalled();
      expect(h.gateway.pushMobileMoney).not.toHaveBeenCalled();
    });

    it("repeats the gateway's earlier refusal as a CheckoutError without calling it again", async () => {
      const h = harness();
      h.referenceHeldBy(
        existingOrder({
          status: 'failed',
          submissionStatus: 'rejected',
          gatewayError: { code: 'invalid_amount', messages: ['amount below the minimum'] },
        }),
      );

      const attempt = h.service.createHosted(hostedDto(), 'shop');

      await expect(attempt).rejects.toBeInstanceOf(CheckoutError);
      await expect(attempt).rejects.toMatchObject({
        code: 'gateway_error',
        category: 'gateway_rejected',
        details: {
          gateway: {
            kind: 'rejected',
            code: 'invalid_amount',
            messages: ['amount below the minimum'],
          },
        },
      });
      expect(h.gateway.submitOrder).not.toHaveBeenCalled();
    });

    it('re-submits a hosted order whose outcome is unknown under the same id and completes that row', async () => {
      const h = harness();
      const unknown = existingOrder({
        submissionStatus: 'unknown',
        orderTrackingId: null,
        redirectUrl: null,
      });
      h.referenceHeldBy(unknown);

      const result = await h.service.createHosted(hostedDto(), 'shop');

      expect(h.gateway.submitOrder).toHaveBeenCalledTimes(1);
      expect(h.gateway.submitOrder.mock.calls[0][0].merchantReference).toBe('ORDER-2041');
      expect(h.submission.completeHosted).toHaveBeenCalledWith(unknown, expect.anything());
      expect(result).toMatchObject({ status: 200, body: { order_tracking_id: 'track-1' } });
    });

    it('never pushes a second PIN prompt for a push whose outcome is unknown', async () => {
      const h = harness();
      h.referenceHeldBy(
        existingOrder({ kind: 'mobile_money', submissionStatus: 'unknown', orderTrackingId: null }),
      );

      const attempt = h.service.createMobileMoney(pushDto(), 'shop');

      await expect(attempt).rejects.toBeInstanceOf(CheckoutError);
      await expect(attempt).rejects.toMatchObject({
        code: 'checkout_outcome_unknown',
        category: 'conflict',
      });
      expect(h.gateway.pushMobileMoney).not.toHaveBeenCalled();
    });

    it('waits for a twin that is still submitting and answers what it got', async () => {
      const h = harness();
      h.service.twinWaitMs = 2_000;
      const submitting = existingOrder({
        submissionStatus: 'submitting',
        orderTrackingId: null,
        redirectUrl: null,
      });
      h.referenceHeldBy(submitting);
      h.orders.findById
        .mockResolvedValueOnce(submitting)
        .mockResolvedValueOnce(existingOrder({ orderTrackingId: 'track-twin' }));

      const result = await h.service.createHosted(hostedDto(), 'shop');

      expect(h.orders.findById).toHaveBeenCalledTimes(2);
      expect(h.orders.findById).toHaveBeenCalledWith(submitting.id);
      expect(result).toMatchObject({ status: 200, body: { order_tracking_id: 'track-twin' } });
      expect(h.gateway.submitOrder).not.toHaveBeenCalled();
    });
  });
});
