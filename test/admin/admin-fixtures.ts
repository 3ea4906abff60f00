import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IpnId, MerchantReference, Money } from '@app/domain';
import { GatewayClient } from '@app/gateway-client';
import { OrderEntity } from '@app/persistence';
import { SANDBOX_CREDENTIALS, type SettleDetails } from '../support/sandbox';
import { startSeededApi } from '../support/seeded-api';
import type { RunningService, ServiceOptions } from '../support/service';

export type PaymentKind = 'card' | 'mobile_money';

/**
 * Orders as the checkout leaves them, made for admin tests without depending on the shop API:
 * the order is created at the sandbox gateway through our own GatewayClient and its row written
 * as the checkout writes it; paying it happens at the sandbox and arrives through an admin sync.
 */
export class AdminFixtures {
  readonly gateway: GatewayClient;
  private ipnId: IpnId | undefined;
  private sequence = 0;

  constructor(
    private readonly service: RunningService,
    readonly dataSource: DataSource,
  ) {
    this.gateway = new GatewayClient({
      baseUrl: service.sandbox.baseUrl,
      consumerKey: SANDBOX_CREDENTIALS.consumerKey,
      consumerSecret: SANDBOX_CREDENTIALS.consumerSecret,
      timeoutMs: 5000,
      productionMode: false,
      mobileMoneyNetworks: ['MPESA', 'AIRTELKE'],
    });
  }

  reference(prefix = 'adm'): string {
    this.sequence += 1;
    return `${prefix}-${randomBytes(5).toString('hex')}-${this.sequence}`;
  }

  private async notificationId(): Promise<IpnId> {
    this.ipnId ??= (
      await this.gateway.registerIpn(`${this.service.apiUrl}/v1/ipn/admin-tests`, 'POST')
    ).ipnId;
    return this.ipnId;
  }

  /** A hosted-page order, submitted to the sandbox and stored as pending. */
  async hostedOrder(
    overrides: Partial<OrderEntity> = {},
    amount = '1500.00',
  ): Promise<OrderEntity> {
    const reference = overrides.merchantReference ?? this.reference();
    const email = `buyer.${reference}@example.com`;
    const submitted = await this.gateway.submitOrder({
      merchantReference: reference as MerchantReference,
      amount: Money.of(amount, 'KES'),
      description: 'Two tickets',
      callbackUrl: `${this.service.apiUrl}/v1/return`,
      notificationId: await this.notificationId(),
      billingAddress: { email },
    });
    return this.store({
      merchantReference: reference,
      orderTrackingId: submitted.orderTrackingId,
      redirectUrl: submitted.redirectUrl,
      kind: 'hosted',
      amount,
      customer: { email },
      customerEmail: email,
      ...overrides,
    });
  }

  /** A mobile-money push order (its generated push reference stored beside ours). */
  async pushOrder(msisdn: string, amount = '700.00'): Promise<OrderEntity> {
    const reference = this.reference('push');
    const pushed = await this.gateway.pushMobileMoney({
      merchantReference: reference as MerchantReference,
      amount: Money.of(amount, 'KES'),
      description: 'Airtime',
      callbackUrl: `${this.service.apiUrl}/v1/return`,
      notificationId: await this.notificationId(),
      billingAddress: { phone: msisdn },
      msisdn,
      network: 'MPESA',
    });
    return this.store({
      merchantReference: reference,
      orderTrackingId: pushed.orderTrackingId,
      pushMerchantReference: pushed.pushMerchantReference,
      businessNumber: pushed.businessNumber,
      pushAccountNumber: pushed.accountNumber,
      kind: 'mobile_money',
      amount,
      msisdn,
      network: 'MPESA',
      customer: { phone: msisdn },
      customerPhone: msisdn,
    });
  }

  private store(fields: Partial<OrderEntity>): Promise<OrderEntity> {
    const orders = this.dataSource.getRepository(OrderEntity);
    return orders.save(
      orders.create({
        status: 'pending',
        submissionStatus: 'submitted',
        currency: 'KES',
        description: 'Two tickets',
        ...fields,
      }),
    );
  }

  /** Settles the order at the sandbox, then lets the admin sync apply it; returns the fresh row. */
  async settle(
    order: OrderEntity,
    outcome: 'completed' | 'failed' | 'reversed',
    method: PaymentKind = 'card',
    details?: SettleDetails,
  ): Promise<OrderEntity> {
    await this.service.sandbox.control.settle(
      order.orderTrackingId as string,
      outcome,
      method,
      details,
    );
    const response = await fetch(
      `${this.service.apiUrl}/v1/admin/orders/${order.merchantReference}/sync`,
      { method: 'POST', headers: this.service.adminAuth },
    );
    if (response.status !== 200)
      throw new Error(`sync: ${response.status} ${await response.text()}`);
    return this.dataSource.getRepository(OrderEntity).findOneByOrFail({ id: order.id });
  }

  async paidOrder(method: PaymentKind = 'card', amount = '1500.00'): Promise<OrderEntity> {
    const paid = await this.settle(await this.hostedOrder({}, amount), 'completed', method);
    if (paid.status !== 'completed') throw new Error(`order did not complete: ${paid.status}`);
    return paid;
  }

  /**
   * An order made at the gateway only, never in our database (as one made on its dashboard, or
   * lost in a restore would be), announcing itself to `notificationId`; not paid yet.
   */
  async gatewayOnlyOrder(
    notificationId: IpnId,
    amount: string,
    description: string,
  ): Promise<{ trackingId: string; reference: string }> {
    const reference = this.reference('DASH');
    const submitted = await this.gateway.submitOrder({
      merchantReference: reference as MerchantReference,
      amount: Money.of(amount, 'KES'),
      description,
      callbackUrl: `${this.service.apiUrl}/v1/return`,
      notificationId,
      billingAddress: { email: 'walk-in@example.com' },
    });
    return { trackingId: submitted.orderTrackingId, reference };
  }

  /** An order made at the gateway only (gatewayOnlyOrder), paid there by card. */
  async paidAtGatewayOnly(
    notificationId: IpnId,
    amount = '1500.00',
  ): Promise<{ trackingId: string; reference: string; confirmationCode: string }> {
    const order = await this.gatewayOnlyOrder(notificationId, amount, 'Paid on the dashboard');
    const paid = await this.service.sandbox.control.settle(order.trackingId, 'completed', 'card');
    return { ...order, confirmationCode: paid.confirmation_code as string };
  }

  async refundRequests(): Promise<number> {
    return (await this.service.sandbox.control.requests()).counts.RefundRequest ?? 0;
  }
}

/** What an admin suite runs on: the api on the run's database, a data source and the fixtures. */
export interface AdminSuite {
  service: RunningService;
  dataSource: DataSource;
  fixtures: AdminFixtures;
  close(): Promise<void>;
}

/**
 * The api (its migrations run at start), with `options.env` and `options.port`; the sandbox
 * drops its own notifications, so an order changes only through what the test does (a sync).
 */
export async function startAdminSuite(
  options: Pick<ServiceOptions, 'env' | 'port'> = {},
): Promise<AdminSuite> {
  const api = await startSeededApi({
    service: { port: options.port, env: { RUN_MIGRATIONS: 'true', ...options.env } },
  });
  const { service, dataSource } = api;
  try {
    await service.sandbox.control.notifications('drop');
  } catch (error) {
    await api.close();
    throw error;
  }
  return {
    service,
    dataSource,
    fixtures: new AdminFixtures(service, dataSource),
    close: api.close,
  };
}

/**
 * Registers the describe's beforeAll (startAdminSuite) and afterAll (close); the fields are set by
 * the time its tests run.
 */
export function adminSuiteForTests(options: Pick<ServiceOptions, 'env' | 'port'> = {}): AdminSuite {
  const the = {} as AdminSuite;
  let started: AdminSuite | undefined;
  beforeAll(async () => {
    started = await startAdminSuite(options);
    Object.assign(the, started);
  }, 60_000);
  afterAll(() => started?.close());
  return the;
}
