import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OrderStore } from '../orders/order-store';
import type { SandboxOrder } from '../orders/sandbox-order';
import { SettlementRefused, SettlementService } from '../orders/settlement.service';
import { checkoutPage, messagePage } from './hosted-page.html';

const PAGE_PATH = '/pesapaliframe/PesapalIframe3';

function html(res: FastifyReply, status: number, page: string): void {
  void res.code(status).header('content-type', 'text/html; charset=utf-8').send(page);
}

function withOrder(base: string, order: SandboxOrder, notificationType?: string): string {
  const url = new URL(base);
  url.searchParams.set('OrderTrackingId', order.orderTrackingId);
  url.searchParams.set('OrderMerchantReference', order.merchantReference);
  if (notificationType) url.searchParams.set('OrderNotificationType', notificationType);
  return url.toString();
}

/** The hosted payment page at redirect_url, played by a customer in a browser. */
@Controller('pesapaliframe/PesapalIframe3')
export class HostedPageController {
  constructor(
    private readonly store: OrderStore,
    private readonly settlement: SettlementService,
  ) {}

  @Get('Index')
  show(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    const order = this.orderOf((req.query as Record<string, string | undefined>).OrderTrackingId);
    if (!order)
      return html(res, 404, messagePage('Order not found', 'No order has this tracking id.'));
    html(res, 200, checkoutPage(order, `${PAGE_PATH}/Pay`));
  }

  @Post('Pay')
  pay(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
    const order = this.orderOf(form.get('OrderTrackingId') ?? undefined);
    if (!order)
      return html(res, 404, messagePage('Order not found', 'No order has this tracking id.'));
    const action = form.get('action');
    if (action === 'cancel') {
      const target = order.cancellationUrl ?? order.callbackUrl;
      if (!target) return html(res, 200, messagePage('Cancelled', 'You may close this page.'));
      return void res.redirect(withOrder(target, order), 303);
    }
    const billingPhone = order.billingAddress.phone_number;
    try {
      if (action === 'card')
        this.settlement.settle(order, { outcome: 'completed', instrument: 'card' });
      else if (action === 'mobile_money') {
        this.settlement.settle(order, {
          outcome: 'completed',
          instrument: order.network ?? 'mpesa',
          account: typeof billingPhone === 'string' && billingPhone ? billingPhone : undefined,
        });
      } else if (action === 'fail')
        this.settlement.settle(order, { outcome: 'failed', instrument: 'card' });
      else return html(res, 400, messagePage('Unknown action', 'Choose one of the buttons.'));
    } catch (error) {
      if (!(error instanceof SettlementRefused)) throw error;
      return html(
        res,
        409,
        messagePage('Order closed', `This order is ${order.state} and cannot be paid.`),
      );
    }
    if (!order.callbackUrl)
      return html(res, 200, messagePage('Thank you', 'You may close this page.'));
    res.redirect(withOrder(order.callbackUrl, order, 'CALLBACKURL'), 303);
  }

  private orderOf(orderTrackingId: string | undefined): SandboxOrder | undefined {
    return orderTrackingId ? this.store.byTracking(orderTrackingId.trim()) : undefined;
  }
}
