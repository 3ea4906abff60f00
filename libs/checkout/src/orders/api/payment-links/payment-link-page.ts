import { BadRequestException, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { Money } from '@app/domain';
import { OrderRepository, PaymentLinkEntity } from '@app/persistence';
import { CheckoutError, FieldProblem } from '../../../errors/checkout-error';
import { pageSecurity, securePage } from '../../../http/page-security';
import { SourceAddressCeiling } from '../../../http/rate-limits';
import { checkoutValidationPipe } from '../../../http/validation';
import { CheckoutService } from '../checkout.service';
import { CreateCheckoutDto, CreateMobileMoneyCheckoutDto } from '../dto/create-checkout.dto';
import { StatusTokens } from '../live/status-tokens';
import { paymentLinkStatus } from './payment-link-status';
import {
  linkPage,
  noticePage,
  PAGE_ASSETS,
  PAGE_SCRIPT,
  PAGE_STYLES,
  PaymentForm,
  waitingPage,
} from './payment-link-pages';
import { PaymentLinksService, ReservedUse } from './payment-links.service';

/** Payments a single address may start a minute on link pages (and pages it may load). */
export const PAYMENTS_PER_ADDRESS_PER_MINUTE = 20;
export const PAGE_VIEWS_PER_ADDRESS_PER_MINUTE = 240;
const FORM_BODY_LIMIT = 8 * 1024;

const CLOSED: Record<string, string> = {
  expired: 'This payment link has expired.',
  completed: 'This payment link has been paid and takes no more payments.',
  deactivated: 'This payment link is no longer active.',
};

/**
 * The public page of a payment link, at PUBLIC_BASE_URL/pay/{id}: plain Fastify routes (the
 * form's body is parsed by the app's urlencoded parser, within a small body limit). The page starts a payment as a checkout of the
 * link's, through the same checkout service and rules as POST /v1/checkouts: a use of the link is
 * reserved first, so a closed link or a taken last use starts nothing and calls no gateway. The
 * page shows nothing but the link and what the customer typed; the waiting page follows one
 * order with its read-only status token.
 */
@Injectable()
export class PaymentLinkPage implements OnModuleInit {
  private readonly logger = new Logger(PaymentLinkPage.name);
  private readonly payments = new SourceAddressCeiling(PAYMENTS_PER_ADDRESS_PER_MINUTE);
  private readonly views = new SourceAddressCeiling(PAGE_VIEWS_PER_ADDRESS_PER_MINUTE);
  /** Sets the page's headers (its Content-Security-Policy among them) on an answer. */
  private readonly secured: (reply: FastifyReply) => Promise<void>;
  private readonly validation = checkoutValidationPipe();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly links: PaymentLinksService,
    private readonly checkouts: CheckoutService,
    private readonly orders: OrderRepository,
    private readonly tokens: StatusTokens,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    // The form posts to our own route, which sends the customer on to the gateway's page.
    this.secured = securePage(pageSecurity([new URL(config.gateway.baseUrl).origin]));
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    void fastify.register(async (scope) => {
      scope.get(`${PAGE_ASSETS}/page.css`, (_request, reply) =>
        this.asset(reply, 'text/css; charset=utf-8', PAGE_STYLES),
      );
      scope.get(`${PAGE_ASSETS}/page.js`, (_request, reply) =>
        this.asset(reply, 'text/javascript; charset=utf-8', PAGE_SCRIPT),
      );
      scope.get('/pay/:id', (request, reply) =>
        this.guarded(request, reply, 'view', () => this.show(request, reply)),
      );
      scope.post('/pay/:id', { bodyLimit: FORM_BODY_LIMIT }, (request, reply) =>
        this.guarded(request, reply, 'pay', () => this.pay(request, reply)),
      );
      scope.get('/pay/:id/payments/:reference', (request, reply) =>
        this.guarded(request, reply, 'view', () => this.payment(request, reply)),
      );
    });
  }

  private async show(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const link = await this.openLink(request, reply);
    if (!link) return reply;
    return this.html(reply, 200, linkPage(link));
  }

  private async pay(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const link = await this.openLink(request, reply);
    if (!link) return reply;
    const form = formOf(request.body);
    const checked = await this.checkout(link, form);
    if ('problems' in checked) return this.html(reply, 400, linkPage(link, form, checked.problems));
    let use: ReservedUse;
    try {
      use = await this.links.reserve(link);
      await this.links.closeUnheld(link, use);
    } catch (error) {
      if (!(error instanceof CheckoutError)) throw error;
      return this.refused(reply, error);
    }
    // The waiting page's address carries the payment's token: another customer of the link
    // cannot read this payment by guessing its reference.
    const returnUrl = `${this.config.publicBaseUrl}/pay/${link.id}/payments/${encodeURIComponent(use.reference)}?token=${this.tokens.issue(use.reference)}`;
    try {
      checked.dto.return_url = returnUrl;
      const result = await this.checkouts.createForLink(
        { ...checked, paymentLinkId: link.id },
        `payment_link:${link.id}`,
        use.reference,
      );
      const answer = result.body as { redirect_url?: string | null };
      if (checked.kind === 'hosted' && answer.redirect_url) {
        return reply.code(303).header('location', answer.redirect_url).send();
      }
      return reply.code(303).header('location', returnUrl).send();
    } catch (error) {
      // Nothing reached the gateway, or it refused the order: the use is free again.
      const order = await this.orders.findByMerchantReference(use.reference);
      if (!order || order.submissionStatus === 'rejected') await this.links.release(link, use);
      // A prompt whose answer was lost may still reach the phone: the customer waits for it
      // (the workers find the order at the gateway by its reference and settle it).
      if (order?.submissionStatus === 'unknown' && checked.kind === 'mobile_money') {
        return reply.code(303).header('location', returnUrl).send();
      }
      if (error instanceof CheckoutError && error.category === 'invalid') {
        const problems = (error.details.errors as FieldProblem[] | undefined) ?? [
          { field: 'payment', reason: error.message },
        ];
        return this.html(reply, 400, linkPage(link, form, problems));
      }
      this.logger.warn(
        { paymentLink: link.id, reference: use.reference, error: (error as Error).message },
        'a payment link payment did not start',
      );
      return this.html(
        reply,
        502,
        noticePage(
          'The payment could not be started',
          'The payment service did not take the payment. Nothing was charged; please try again in a moment.',
        ),
      );
    }
  }

  private async payment(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { id, reference } = request.params as { id: string; reference: string };
    const { token } = request.query as { token?: unknown };
    const allowed = typeof token === 'string' && this.tokens.verify(reference, token);
    const [link, order] = allowed
      ? await Promise.all([this.links.link(id), this.orders.findByMerchantReference(reference)])
      : [null, null];
    if (!link || !order || order.paymentLinkId !== link.id) {
      return this.html(reply, 404, noticePage('Not found', 'There is no such payment.'));
    }
    return this.html(
      reply,
      200,
      waitingPage({
        linkId: link.id,
        reference: order.merchantReference,
        status: order.status,
        kind: order.kind,
        amount: order.amount,
        currency: order.currency,
        description: link.description,
        statusToken: this.tokens.issue(order.merchantReference),
        afterPaymentUrl: link.afterPaymentUrl,
        afterPaymentMessage: link.afterPaymentMessage,
      }),
    );
  }

  /** The link if its page takes payments; else the answer is sent (404, or 410 when closed). */
  private async openLink(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<PaymentLinkEntity | null> {
    const { id } = request.params as { id: string };
    const link = await this.links.link(id);
    if (!link) {
      await this.html(reply, 404, noticePage('Not found', 'There is no such payment link.'));
      return null;
    }
    const status = paymentLinkStatus(link);
    if (status !== 'active') {
      await this.html(reply, 410, noticePage('Payment link closed', CLOSED[status]));
      return null;
    }
    return link;
  }

  /**
   * The checkout the form asks for, checked by the checkout's own rules (its DTO), or the
   * problems, each with the page's field name.
   */
  private async checkout(
    link: PaymentLinkEntity,
    form: PaymentForm,
  ): Promise<
    | { kind: 'hosted'; dto: CreateCheckoutDto }
    | { kind: 'mobile_money'; dto: CreateMobileMoneyCheckoutDto }
    | { problems: FieldProblem[] }
  > {
    const kind = form.method === 'mobile_money' ? 'mobile_money' : 'hosted';
    const problems: FieldProblem[] = [];
    const amount = link.amount ?? (form.amount ?? '').trim();
    if (link.amount === null) {
      // Compared as Money: exact, never as floating point.
      const typed = Money.isValidDecimal(amount) ? Money.of(amount, link.currency) : null;
      const bound = (value: string | null) => value && Money.of(value, link.currency);
      const [min, max] = [bound(link.minAmount), bound(link.maxAmount)];
      if (!typed?.isPositive()) {
        problems.push({ field: 'amount', reason: 'must be an amount such as 1500 or 1500.50' });
      } else if (min && typed.compare(min) < 0) {
        problems.push({ field: 'amount', reason: `must be at least ${link.minAmount}` });
      } else if (max && typed.compare(max) > 0) {
        problems.push({ field: 'amount', reason: `must be at most ${link.maxAmount}` });
      }
    }
    const [firstName, ...rest] = (form.name ?? '').trim().split(/\s+/);
    const phone = (form.phone ?? '').trim() || undefined;
    const customer = {
      email: (form.email ?? '').trim() || undefined,
      phone,
      first_name: firstName || undefined,
      last_name: rest.join(' ') || undefined,
    };
    if (link.collect.includes('name') && !customer.first_name) {
      problems.push({ field: 'name', reason: 'is needed' });
    }
    const body: Record<string, unknown> = {
      amount,
      currency: link.currency,
      account: link.gatewayAccount,
      description: link.description,
      customer: Object.fromEntries(Object.entries(customer).filter(([, v]) => v !== undefined)),
    };
    if (kind === 'mobile_money') {
      body.phone = phone ?? (form.mpesa_phone ?? '').trim();
      body.network = this.config.gateway.mobileMoneyNetworks[0] ?? 'MPESA';
    }
    try {
      const dto = (await this.validation.transform(body, {
        type: 'body',
        metatype: kind === 'hosted' ? CreateCheckoutDto : CreateMobileMoneyCheckoutDto,
      })) as CreateCheckoutDto;
      if (problems.length > 0) return { problems };
      return kind === 'hosted' ? { kind, dto } : { kind, dto: dto as CreateMobileMoneyCheckoutDto };
    } catch (error) {
      if (!(error instanceof BadRequestException)) throw error;
      const errors = (error.getResponse() as { errors?: FieldProblem[] }).errors ?? [];
      return { problems: [...problems, ...errors.map(pageField)] };
    }
  }

  private refused(reply: FastifyReply, error: CheckoutError): Promise<FastifyReply> {
    if (error.code === 'payment_link_taken') {
      return this.html(
        reply,
        409,
        noticePage(
          'Someone is paying this link',
          'Every payment this link takes is paid or being paid right now. Try again in a few minutes.',
        ),
      );
    }
    const status = String(error.details.status ?? 'deactivated');
    return this.html(
      reply,
      410,
      noticePage('Payment link closed', CLOSED[status] ?? CLOSED.deactivated),
    );
  }

  private async guarded(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: 'view' | 'pay',
    serve: () => Promise<FastifyReply>,
  ): Promise<FastifyReply> {
    const wait = (kind === 'pay' ? this.payments : this.views).retryAfter(request.ip ?? 'unknown');
    if (wait !== null) {
      void reply.header('retry-after', String(wait));
      return this.html(
        reply,
        429,
        noticePage('Too many requests', `Please wait ${wait} seconds and try again.`),
      );
    }
    try {
      return await serve();
    } catch (error) {
      this.logger.error(
        { path: request.url.split('?')[0], error: (error as Error).message },
        'payment link page failed',
      );
      return this.html(
        reply,
        500,
        noticePage('Something went wrong', 'Nothing was charged. Please try again in a moment.'),
      );
    }
  }

  private async html(reply: FastifyReply, status: number, page: string): Promise<FastifyReply> {
    await this.secured(reply);
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page);
  }

  private async asset(reply: FastifyReply, type: string, body: string): Promise<FastifyReply> {
    await this.secured(reply);
    return reply.header('cache-control', 'public, max-age=300').type(type).send(body);
  }
}

/** The form's fields as text (anything else is left out). */
function formOf(body: unknown): PaymentForm {
  const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const text = (name: string) =>
    typeof fields[name] === 'string' ? (fields[name] as string) : undefined;
  return {
    method: text('method'),
    amount: text('amount'),
    email: text('email'),
    phone: text('phone'),
    name: text('name'),
    mpesa_phone: text('mpesa_phone'),
  };
}

/** A checkout field's problem under the page's name for it. */
function pageField(problem: FieldProblem): FieldProblem {
  const names: Record<string, string> = {
    'customer.email': 'email',
    'customer.phone': 'phone',
    'customer.first_name': 'name',
    'customer.last_name': 'name',
    customer: 'email or phone',
  };
  return { field: names[problem.field] ?? problem.field, reason: problem.reason };
}
