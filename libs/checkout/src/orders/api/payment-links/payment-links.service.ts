import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { isUuid, Money } from '@app/domain';
import {
  isUniqueViolation,
  OrderEntity,
  OrderRepository,
  PaymentLinkEntity,
} from '@app/persistence';
import { CheckoutError, FieldProblem } from '../../../errors/checkout-error';
import { newestFirstList } from '../../../http/page-cursor';
import { recordCurrentAct } from '../../../operators/audit-trail';
import { OrderCancelService } from '../../order-cancel.service';
import { CheckoutService } from '../checkout.service';
import { amountText } from '../dto/checkout-rules';
import { paymentLinkStatus, paymentLinkStatusSql, PaymentLinkStatus } from './payment-link-status';
import {
  CreatePaymentLinkDto,
  ListPaymentLinksQuery,
  UpdatePaymentLinkDto,
} from './payment-links.dto';
import { PaymentLinkPaymentView, PaymentLinkView, toPaymentLinkView } from './payment-link-view';

/** A link's latest payments, shown with it. */
export const PAYMENTS_SHOWN = 20;
const LIST = 'payment-links';

export interface PaymentLinkPage {
  items: PaymentLinkView[];
  limit: number;
  next_cursor: string | null;
}

export interface PaymentLinkDetail {
  payment_link: PaymentLinkView;
  payments: PaymentLinkPaymentView[];
}

/** A use of a link reserved for one payment: its order's reference. */
export interface ReservedUse {
  reference: string;
}

/**
 * Takes a use of the link for a new payment, under the row's lock, in one statement: the link
 * takes payments (active, not completed or expired) and, if it takes a limited number, its
 * completed payments and the holds still running leave one free. The use is held by the new
 * reference until `$2` minutes from now, or until its order is paid, fails or closes (the
 * journal releases it then). A second customer waiting on the lock is re-checked against the
 * first one's hold, so the last use is taken once.
 */
const RESERVE = `
  UPDATE payment_links l
     SET payments_started = l.payments_started + 1,
         holds = CASE WHEN l.max_payments IS NULL THEN l.holds
                      ELSE (SELECT COALESCE(jsonb_object_agg(h.key, h.value), '{}'::jsonb)
                              FROM jsonb_each_text(l.holds) h
                             WHERE h.value::timestamptz > now())
                           || jsonb_build_object(
                                l.reference_prefix || '-' || (l.payments_started + 1),
                                to_char((now() + make_interval(mins => $2::int)) AT TIME ZONE 'UTC',
                                        'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
                 END,
         updated_at = now()
   WHERE l.id = $1 AND l.active AND l.completed_at IS NULL
     AND (l.expires_at IS NULL OR l.expires_at > now())
     AND (l.max_payments IS NULL
          OR l.payments_completed + (SELECT count(*) FROM jsonb_each_text(l.holds) h
                                      WHERE h.value::timestamptz > now()) < l.max_payments)
  RETURNING l.reference_prefix || '-' || l.payments_started AS reference`;

/**
 * A link's payments that are unpaid (pending, or failed and so still payable at the gateway),
 * known to the gateway, and hold no use (not in its holds), through the partial index of links'
 * unpaid orders: as many as the link's uses at most, since each is closed at the next payment.
 */
const UNHELD = `
  SELECT o.id FROM orders o JOIN payment_links l ON l.id = o.payment_link_id
   WHERE o.payment_link_id = $1 AND o.status IN ('pending', 'failed')
     AND o.submission_status = 'submitted'
     AND NOT l.holds ? o.merchant_reference`;

/** Payment links: made, listed, changed and deactivated through the API; reserved by the page. */
@Injectable()
export class PaymentLinksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly checkouts: CheckoutService,
    private readonly orders: OrderRepository,
    private readonly cancellation: OrderCancelService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async create(dto: CreatePaymentLinkDto, createdBy: string): Promise<PaymentLinkView> {
    const currency = dto.currency;
    const problems: FieldProblem[] = [];
    // The DTO's rules accepted each as a positive amount of at most 2 decimals.
    const money = (value: string | number | undefined) =>
      value === undefined ? null : Money.of(amountText(value) ?? '', currency);
    const amount = money(dto.amount);
    const min = money(dto.min_amount);
    const max = money(dto.max_amount);
    if (amount && (min || max)) {
      problems.push({
        field: min ? 'min_amount' : 'max_amount',
        reason: 'only for an open amount: leave amount out',
      });
    }
    if (min && max && min.compare(max) > 0) {
      problems.push({ field: 'max_amount', reason: 'must not be less than min_amount' });
    }
    const collect = dto.collect ?? ['email'];
    if (!collect.includes('email') && !collect.includes('phone')) {
      problems.push({
        field: 'collect',
        reason: 'must include email or phone (the gateway needs one)',
      });
    }
    const after = dto.after_payment;
    if (after && (after.redirect_url === undefined) === (after.message === undefined)) {
      problems.push({
        field: 'after_payment',
        reason: 'must have a redirect_url or a message (one)',
      });
    }
    const expiresAt = dto.expires_at === undefined ? null : new Date(dto.expires_at);
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      problems.push({ field: 'expires_at', reason: 'must be in the future' });
    }
    if (problems.length > 0) throw CheckoutError.invalid(problems);
    const account = this.checkouts.accountOf(dto.account, currency);

    const link = this.dataSource.getRepository(PaymentLinkEntity).create({
      amount: amount?.toDecimalString() ?? null,
      minAmount: min?.toDecimalString() ?? null,
      maxAmount: max?.toDecimalString() ?? null,
      currency,
      gatewayAccount: account,
      description: dto.description,
      referencePrefix: dto.reference_prefix ?? `link-${randomBytes(6).toString('hex')}`,
      expiresAt,
      maxPayments: dto.max_payments ?? null,
      afterPaymentUrl: after?.redirect_url ?? null,
      afterPaymentMessage: after?.message ?? null,
      collect,
      createdBy,
    });
    try {
      const saved = await this.dataSource.transaction(async (manager) => {
        const row = await manager.getRepository(PaymentLinkEntity).save(link);
        await this.audit(manager, 'payment_link.created', row, null);
        return row;
      });
      return this.view(saved);
    } catch (error) {
      if (isUniqueViolation(error, 'uq_payment_links_reference_prefix')) {
        throw new CheckoutError(
          'reference_prefix_in_use',
          `another payment link has the reference_prefix ${link.referencePrefix}`,
        );
      }
      throw error;
    }
  }

  /** Newest first, through (created_at, id) or (currency, created_at, id). */
  async list(query: ListPaymentLinksQuery): Promise<PaymentLinkPage> {
    const limit = query.limit ?? 50;
    const filters = { status: query.status, currency: query.currency };
    const pages = newestFirstList(LIST, filters, query.cursor);
    const rows = this.dataSource.getRepository(PaymentLinkEntity).createQueryBuilder('l');
    if (query.currency) rows.andWhere('l.currency = :currency', { currency: query.currency });
    if (query.status) rows.andWhere(paymentLinkStatusSql(query.status));
    const page = await pages.page(
      rows,
      { alias: 'l', table: 'payment_links', column: 'created_at', at: (l) => l.createdAt },
      limit,
    );
    const now = new Date();
    return { items: page.rows.map((l) => this.view(l, now)), limit, next_cursor: page.next_cursor };
  }

  async find(id: string): Promise<PaymentLinkDetail> {
    const link = await this.link(id);
    if (!link) throw CheckoutError.notFound('payment_link', id);
    const orders = await this.dataSource.getRepository(OrderEntity).find({
      where: { paymentLinkId: link.id },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: PAYMENTS_SHOWN,
    });
    return {
      payment_link: this.view(link),
      payments: orders.map((order) => ({
        reference: order.merchantReference,
        status: order.status,
        amount: order.amount,
        currency: order.currency,
        kind: order.kind,
        customer_email: order.customerEmail,
        paid_at: order.paidAt?.toISOString() ?? null,
        created_at: order.createdAt.toISOString(),
      })),
    };
  }

  async update(id: string, dto: UpdatePaymentLinkDto): Promise<PaymentLinkView> {
    const expiresAt =
      dto.expires_at === undefined ? undefined : dto.expires_at ? new Date(dto.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw CheckoutError.invalid([{ field: 'expires_at', reason: 'must be in the future' }]);
    }
    const updated = await this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(PaymentLinkEntity);
      const link = isUuid(id)
        ? await repository.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!link) throw CheckoutError.notFound('payment_link', id);
      const before = this.view(link);
      if (dto.description !== undefined) link.description = dto.description;
      if (expiresAt !== undefined) link.expiresAt = expiresAt;
      if (dto.active === false) link.active = false;
      const saved = await repository.save(link);
      await this.audit(manager, 'payment_link.changed', saved, before);
      return saved;
    });
    return this.view(updated);
  }

  /** The link, or null when the id names none. */
  async link(id: string): Promise<PaymentLinkEntity | null> {
    if (!isUuid(id)) return null;
    return this.dataSource.getRepository(PaymentLinkEntity).findOneBy({ id });
  }

  /**
   * Takes a use of the link for one payment: its order's reference, or the refusal (the link
   * closed, or every use taken) before anything else is done.
   */
  async reserve(link: PaymentLinkEntity): Promise<ReservedUse> {
    const rows = (await this.dataSource.query(RESERVE, [
      link.id,
      this.config.paymentLinkHoldMinutes,
    ])) as [{ reference: string }[], number];
    const [row] = rows[0];
    if (row) return { reference: row.reference };
    const now = await this.link(link.id);
    const status: PaymentLinkStatus = now ? paymentLinkStatus(now) : 'deactivated';
    if (status !== 'active') {
      throw new CheckoutError('payment_link_closed', `this payment link is ${status}`, { status });
    }
    throw new CheckoutError(
      'payment_link_taken',
      'every payment this link takes is paid or being paid; try again in a few minutes',
    );
  }

  /**
   * Before a reserved use of a link that takes a limited number is paid: its earlier payments
   * that are unpaid and hold no use any more (declined, or their hold lapsed while the customer
   * left) are cancelled at the gateway, so none of them can still take money beside the new one.
   * One that was paid meanwhile (or that the gateway will not cancel) keeps its use: the reserved
   * one is given back and refused as taken.
   */
  async closeUnheld(link: PaymentLinkEntity, use: ReservedUse): Promise<void> {
    if (link.maxPayments === null) return;
    const unheld = (await this.dataSource.query(UNHELD, [link.id])) as { id: string }[];
    for (const { id } of unheld) {
      const order = await this.orders.findById(id);
      if (!order) continue;
      try {
        await this.cancellation.cancel(order, {
          source: 'api',
          actor: `payment_link:${link.id}`,
          note: 'a later payment took its use of the payment link',
        });
      } catch (error) {
        await this.release(link, use);
        // Paid meanwhile, or the gateway would not cancel it (it may be being paid).
        if (error instanceof CheckoutError && error.category === 'conflict') {
          throw new CheckoutError(
            'payment_link_taken',
            'every payment this link takes is paid or being paid; try again in a few minutes',
          );
        }
        throw error;
      }
    }
  }

  /** Gives a use back: its payment never started at the gateway. */
  async release(link: PaymentLinkEntity, use: ReservedUse): Promise<void> {
    await this.dataSource.query(
      `UPDATE payment_links SET holds = holds - $2::text WHERE id = $1 AND holds ? $2::text`,
      [link.id, use.reference],
    );
  }

  view(link: PaymentLinkEntity, now = new Date()): PaymentLinkView {
    return toPaymentLinkView(link, this.config.publicBaseUrl, now);
  }

  /** Every change in the audit trail, in its own transaction (the act of the admin route). */
  private async audit(
    manager: EntityManager,
    action: string,
    link: PaymentLinkEntity,
    before: PaymentLinkView | null,
  ): Promise<void> {
    await recordCurrentAct(manager, {
      action,
      target: `payment_link:${link.id}`,
      before: before as Record<string, unknown> | null,
      after: this.view(link) as unknown as Record<string, unknown>,
    });
  }
}
