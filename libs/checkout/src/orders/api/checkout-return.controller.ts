import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CheckoutReturnService } from './checkout-return.service';

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const HEADLINES: Record<string, string> = {
  completed: 'Payment received',
  pending: 'Payment not confirmed yet',
  failed: 'Payment failed',
  cancelled: 'Payment cancelled',
  reversed: 'Payment refunded',
  expired: 'Payment expired',
};

/**
 * Customer-facing pages (no API key: the customer's browser arrives here from the gateway).
 * The callback_url and cancellation_url of every order point at /v1/checkouts/return.
 */
@ApiExcludeController()
@Controller('v1/checkouts')
export class CheckoutReturnController {
  constructor(private readonly returns: CheckoutReturnService) {}

  @Get('return')
  async return(
    @Query() query: Record<string, string | undefined>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const target = await this.returns.destination({
      orderTrackingId: query.OrderTrackingId,
      merchantReference: query.OrderMerchantReference,
      cancelled: query.cancelled === '1',
    });
    void reply.redirect(target, 303);
  }

  /** Where customers land when neither the order nor DEFAULT_RETURN_URL names a page. */
  @Get('result')
  result(@Query() query: Record<string, string | undefined>, @Res() reply: FastifyReply): void {
    const status = typeof query.status === 'string' ? query.status : 'unknown';
    const reference = typeof query.reference === 'string' ? query.reference : '';
    const headline = HEADLINES[status] ?? 'Payment status unknown';
    void reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(headline)}</title></head>` +
          `<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto"><h1>${escapeHtml(headline)}</h1>` +
          `<p>Order <strong>${escapeHtml(reference)}</strong>: ${escapeHtml(status)}.</p><p>You may close this page.</p></body></html>`,
      );
  }
}
