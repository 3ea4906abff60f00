import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { BillingAddress, MerchantReference, Money } from '@app/domain';
import {
  buildOrderBody,
  buildPushBody,
  GatewayAccounts,
  GatewayError,
  GatewayRejectedError,
  GatewayRequestInvalidError,
  OrderRequest,
  PushRequest,
  SubscriptionFrequency,
} from '@app/gateway-client';
import { serviceMetrics } from '@app/common';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { IpnRegistrationService } from '../ipn-registration.service';
import { CheckoutAnswer, checkoutAnswerOf } from './checkout-answers';
import {
  CheckoutSubmission,
  NewOrder,
  RecordedOrder,
  ReferenceTakenError,
} from './checkout-submission';
import { amountText } from './dto/checkout-rules';
import { mobileMoneyCountry, readMobileNumber } from './dto/mobile-number';
import {
  CreateCheckoutDto,
  CreateMobileMoneyCheckoutDto,
  CustomerDto,
} from './dto/create-checkout.dto';

export const RETURN_PATH = '/v1/checkouts/return';

export interface CheckoutResult {
  /** 201 for a new order, 200 when an earlier request with the same reference made it. */
  status: 201 | 200;
  body: CheckoutAnswer;
}

type Checkout = (
  | { kind: 'hosted'; dto: CreateCheckoutDto }
  | { kind: 'mobile_money'; dto: CreateMobileMoneyCheckoutDto }
) & {
  /** The payment link it is paid through: its reference is the link's, never re-used. */
  paymentLinkId?: string;
};

/** A payment through a payment link: a checkout of either kind, under the link's reference. */
export type LinkCheckout = Checkout & { paymentLinkId: string };

/** Generated references: "chk_" and 24 hex digits, well inside the gateway's 50. */
export const generatedReference = (): string => `chk_${randomBytes(12).toString('hex')}`;

/**
 * Starts payments. The row is written before the gateway call and completed after it, so a
 * crash in between leaves a row the workers can repair. A reference names one order for good:
 * the gateway would silently answer a re-used id with the old order at its old amount, so a
 * re-used reference either returns that same order (same amount and currency) or is a 409.
 */
@Injectable()
export class CheckoutService {
  /** How long a request waits for a twin that is still submitting the same reference. */
  twinWaitMs: number;

  constructor(
    private readonly accounts: GatewayAccounts,
    private readonly submission: CheckoutSubmission,
    private readonly orders: OrderRepository,
    private readonly ipn: IpnRegistrationService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.twinWaitMs = config.gateway.timeoutMs * 3 + 2000;
  }

  createHosted(dto: CreateCheckoutDto, actor: string, reference?: string): Promise<CheckoutResult> {
    return counted('hosted', this.create({ kind: 'hosted', dto }, actor, reference));
  }

  createMobileMoney(
    dto: CreateMobileMoneyCheckoutDto,
    actor: string,
    reference?: string,
  ): Promise<CheckoutResult> {
    return counted('mobile_money', this.create({ kind: 'mobile_money', dto }, actor, reference));
  }

  /**
   * A payment through a payment link (its use reserved): a reference that names an order
   * already is refused (409), never answered with that order.
   */
  createForLink(checkout: LinkCheckout, actor: string, reference: string): Promise<CheckoutResult> {
    return counted(checkout.kind, this.create(checkout, actor, reference));
  }

  private async create(
    checkout: Checkout,
    actor: string,
    fallbackReference?: string,
  ): Promise<CheckoutResult> {
    const { dto } = checkout;
    // Generated only when needed: random bytes cost a checkout that names its reference ~3%.
    const reference = dto.reference ?? fallbackReference ?? generatedReference();
    const amount = Money.of(amountText(dto.amount) ?? '', dto.currency);
    const account = this.accountOf(dto.account, amount.currency);
    const request = await this.gatewayRequest(checkout, reference, amount, account);

    // No read first: the unique index says whether the reference is new, in the same round trip.
    let order: RecordedOrder;
    try {
      order = await this.submission.record(
        this.newOrder(checkout, reference, amount, account),
        actor,
      );
    } catch (error) {
      if (!(error instanceof ReferenceTakenError) || checkout.paymentLinkId) throw error;
      const twin = await this.orders.findByMerchantReference(reference);
      if (!twin) throw error;
      return this.reuse(twin, checkout, amount, request, account);
    }
    return { status: 201, body: await this.submit(order, checkout.kind, request) };
  }

  /**
   * The merchant account a checkout goes to: the one it names (which must take its currency),
   * else its currency's. Refused with the field named, before anything is written.
   */
  accountOf(named: string | undefined, currency: string): string {
    if (named !== undefined) {
      if (!this.accounts.has(named)) {
        throw CheckoutError.invalid([
          {
            field: 'account',
            reason: `no account ${named} (accounts: ${this.accounts.ids().join(', ')})`,
          },
        ]);
      }
      if (!this.accounts.takes(named, currency)) {
        throw CheckoutError.invalid([
          { field: 'account', reason: `account ${named} does not take ${currency}` },
        ]);
      }
      return named;
    }
    const account = this.accounts.accountFor(currency);
    if (!account) {
      throw CheckoutError.invalid([
        { field: 'currency', reason: `no merchant account takes ${currency}` },
      ]);
    }
    return account;
  }

  /** Validated the way the gateway client will send it, so nothing is written for a bad request. */
  private async gatewayRequest(
    checkout: Checkout,
    reference: string,
    amount: Money,
    account: string,
  ): Promise<OrderRequest | PushRequest> {
    const { dto } = checkout;
    const callbackUrl = `${this.config.publicBaseUrl}${RETURN_PATH}`;
    const customer = dto.customer;
    const request: OrderRequest = {
      merchantReference: MerchantReference(reference),
      amount,
      description: dto.description,
      callbackUrl,
      cancellationUrl: `${callbackUrl}?cancelled=1`,
      notificationId: await this.ipn.currentIpnId(account),
      billingAddress: billingAddressOf(customer),
      branch: dto.branch,
      redirectMode: dto.redirect_mode,
      subscription: dto.subscription && {
        accountNumber: dto.subscription.account_number,
        startDate: dto.subscription.start_date,
        endDate: dto.subscription.end_date,
        frequency: dto.subscription.frequency as SubscriptionFrequency,
      },
    };
    return this.checkedRequest(
      request,
      checkout.kind === 'hosted'
        ? null
        : { msisdn: msisdnOf(checkout.dto), network: checkout.dto.network },
    );
  }

  /**
   * The gateway request of a new payment attempt of `order`, sent under `gatewayReference`:
   * the order's own description, customer and options; a phone and network for a push.
   */
  async attemptRequest(
    order: OrderEntity,
    gatewayReference: MerchantReference,
    push: { msisdn: string; network: string } | null,
  ): Promise<OrderRequest | PushRequest> {
    const callbackUrl = `${this.config.publicBaseUrl}${RETURN_PATH}`;
    return this.checkedRequest(
      {
        merchantReference: gatewayReference,
        amount: Money.of(order.amount, order.currency),
        description: order.description,
        callbackUrl,
        cancellationUrl: `${callbackUrl}?cancelled=1`,
        notificationId: await this.ipn.currentIpnId(order.gatewayAccount),
        billingAddress: order.customer,
        branch: order.branch ?? undefined,
        redirectMode: (order.redirectMode ?? undefined) as OrderRequest['redirectMode'],
      },
      push,
    );
  }

  /** Built (and so checked) the way the gateway client will send it. */
  private checkedRequest(
    request: OrderRequest,
    push: { msisdn: string; network: string } | null,
  ): OrderRequest | PushRequest {
    const rules = {
      productionMode: this.config.nodeEnv === 'production',
      mobileMoneyNetworks: this.config.gateway.mobileMoneyNetworks,
    };
    if (!push) {
      buildOrderBody(request, rules);
      return request;
    }
    const pushed: PushRequest = {
      ...request,
      ...push,
      network: this.configuredNetwork(push.network),
    };
    buildPushBody(pushed, rules);
    return pushed;
  }

  /** The network as MOBILE_MONEY_NETWORKS spells it. */
  configuredNetwork(requested: string): string {
    return (
      this.config.gateway.mobileMoneyNetworks.find(
        (network) => network.toUpperCase() === requested.toUpperCase(),
      ) ?? requested
    );
  }

  private newOrder(
    checkout: Checkout,
    reference: string,
    amount: Money,
    gatewayAccount: string,
  ): NewOrder {
    const { dto } = checkout;
    const customer = dto.customer;
    return {
      merchantReference: reference,
      kind: checkout.kind,
      amount: amount.toDecimalString(),
      currency: amount.currency,
      description: dto.description,
      customer: billingAddressOf(customer),
      customerEmail: customer.email ?? null,
      customerPhone: customer.phone ?? null,
      returnUrl: dto.return_url ?? null,
      cancelUrl: dto.cancel_url ?? null,
      branch: dto.branch ?? null,
      redirectMode: dto.redirect_mode ?? null,
      subscription: dto.subscription
        ? {
            accountNumber: dto.subscription.account_number,
            startDate: dto.subscription.start_date,
            endDate: dto.subscription.end_date,
            frequency: dto.subscription.frequency,
          }
        : null,
      accountNumber: dto.subscription?.account_number ?? null,
      msisdn: checkout.kind === 'mobile_money' ? msisdnOf(checkout.dto) : null,
      network:
        checkout.kind === 'mobile_money' ? this.configuredNetwork(checkout.dto.network) : null,
      gatewayAccount,
      paymentLinkId: checkout.paymentLinkId ?? null,
    };
  }

  /** Sends a recorded order (or a new attempt of one) to the gateway and records the answer. */
  async submit(
    order: RecordedOrder,
    kind: Checkout['kind'],
    request: OrderRequest | PushRequest,
  ): Promise<CheckoutAnswer> {
    let completed: CheckoutAnswer;
    const gateway = this.accounts.forOrder(order);
    const send = (sent: OrderRequest | PushRequest) =>
      kind === 'hosted'
        ? gateway
            .submitOrder(sent)
            .then((submitted) => this.submission.completeHosted(order, submitted))
        : gateway
            .pushMobileMoney(sent as PushRequest)
            .then((pushed) => this.submission.completePush(order, pushed));
    try {
      completed = await send(request).catch(async (error: unknown) => {
        // A refused notification_id made no order at the gateway: send again with a valid one.
        if (!(error instanceof GatewayRejectedError && error.unknownNotificationId)) throw error;
        const notificationId = await this.ipn.replaceRejected(
          order.gatewayAccount,
          request.notificationId,
        );
        return send({ ...request, notificationId });
      });
    } catch (error) {
      await this.submission.markFailed(order, error);
      throw error;
    }
    return completed;
  }

  /** The reference names an order already: the same checkout again, or a conflict. */
  private async reuse(
    order: OrderEntity,
    checkout: Checkout,
    amount: Money,
    request: OrderRequest | PushRequest,
    account: string,
  ): Promise<CheckoutResult> {
    if (
      order.kind !== checkout.kind ||
      order.currency !== amount.currency ||
      !Money.of(order.amount, order.currency).equals(amount) ||
      order.gatewayAccount !== account
    ) {
      throw new CheckoutError(
        'reference_in_use',
        `reference ${order.merchantReference} already names a ${order.kind} checkout of ${order.amount} ${order.currency} on account ${order.gatewayAccount}; use a new reference`,
        {
          existing: {
            kind: order.kind,
            amount: order.amount,
            currency: order.currency,
            account: order.gatewayAccount,
          },
        },
      );
    }
    const settled = await this.waitWhileSubmitting(order);
    switch (settled.submissionStatus) {
      case 'submitted':
        return { status: 200, body: checkoutAnswerOf(settled) };
      case 'rejected':
        throw new CheckoutError(
          'gateway_error',
          `the payment gateway refused this checkout earlier: ${settled.gatewayError?.messages.join('; ') ?? settled.failureReason ?? 'rejected'}`,
          {
            gateway: {
              kind: 'rejected',
              code: settled.gatewayError?.code ?? null,
              messages: settled.gatewayError?.messages ?? [],
            },
          },
        );
      default:
        break;
    }
    if (settled.gatewayReference) {
      // A later payment attempt is on its way to the gateway under its own id: re-sending this
      // checkout under the reference would answer the first attempt's order instead.
      throw new CheckoutError(
        'checkout_outcome_unknown',
        `a new payment attempt of ${settled.merchantReference} is being sent to the gateway; follow GET /v1/orders/${settled.merchantReference}`,
      );
    }
    // Re-submitting a known id makes no second order at the gateway: it answers the original.
    if (checkout.kind === 'hosted') {
      const submitted = await this.accounts.forOrder(settled).submitOrder(request);
      return {
        status: 200,
        body: await this.submission.completeHosted(settled, submitted),
      };
    }
    // A second push would be a second PIN prompt; the workers settle the first one.
    throw new CheckoutError(
      'checkout_outcome_unknown',
      `the gateway's answer to the push for ${settled.merchantReference} is not known yet; follow GET /v1/orders/${settled.merchantReference}`,
    );
  }

  private async waitWhileSubmitting(order: OrderEntity): Promise<OrderEntity> {
    const deadline = Date.now() + this.twinWaitMs;
    let current = order;
    for (
      let pause = 20;
      current.submissionStatus === 'submitting';
      pause = Math.min(pause * 2, 250)
    ) {
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, pause));
      current = (await this.orders.findById(order.id)) ?? current;
    }
    return current;
  }
}

/** The shop's snake_case customer as the gateway's billing address (also what the order row keeps). */
function billingAddressOf(customer: CustomerDto): BillingAddress {
  return {
    email: customer.email,
    phone: customer.phone,
    firstName: customer.first_name,
    middleName: customer.middle_name,
    lastName: customer.last_name,
    countryCode: customer.country_code?.toUpperCase(),
    line1: customer.line_1,
    line2: customer.line_2,
    city: customer.city,
    state: customer.state,
    postalCode: customer.postal_code,
    zipCode: customer.zip_code,
  };
}

/** Counts a checkout by kind and how it ended (checkouts_total). */
async function counted(
  kind: Checkout['kind'],
  checkout: Promise<CheckoutResult>,
): Promise<CheckoutResult> {
  try {
    const result = await checkout;
    serviceMetrics.checkouts.inc({ kind, result: result.status === 201 ? 'created' : 'replayed' });
    return result;
  } catch (error) {
    serviceMetrics.checkouts.inc({ kind, result: checkoutFailure(error) });
    throw error;
  }
}

function checkoutFailure(error: unknown): string {
  if (error instanceof GatewayError)
    return error.kind === 'rejected' || error.kind === 'auth' ? 'rejected' : 'unknown';
  if (error instanceof CheckoutError && error.code === 'gateway_error') return 'rejected';
  return error instanceof CheckoutError || error instanceof GatewayRequestInvalidError
    ? 'refused'
    : 'error';
}

/** The phone as push takes it (254712345678); the DTO's rules have already accepted it. */
function msisdnOf(dto: CreateMobileMoneyCheckoutDto): string {
  const reading = readMobileNumber(dto.phone, mobileMoneyCountry(dto.country, dto.currency));
  if (!reading.ok) throw CheckoutError.invalid([{ field: reading.field, reason: reading.reason }]);
  return reading.msisdn;
}
