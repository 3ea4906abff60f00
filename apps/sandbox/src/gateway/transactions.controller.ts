import { Controller, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthenticatedRequest, BearerGuard } from '../auth/bearer.guard';
import { LOOKUP_PARAMETERS } from '../gateway-choices';
import { sendGatewayReply } from '../http/gateway-reply';
import { bindBody, queryParameter } from '../http/raw-body';
import { MerchantActionsService } from '../orders/merchant-actions.service';
import { OrderService } from '../orders/order.service';
import type { LookupEndpoint } from '../orders/status-record';

@Controller('pesapalv3/api/Transactions')
@UseGuards(BearerGuard)
export class TransactionsController {
  constructor(
    private readonly orders: OrderService,
    private readonly actions: MerchantActionsService,
  ) {}

  @Post('SubmitOrderRequest')
  submit(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.orders.submit(req.merchant.uid, bindBody(req)));
  }

  /** The gateway spells this path in lower case; routing ignores case anyway. */
  @Post('stk')
  stk(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.orders.stk(req.merchant.uid, bindBody(req)));
  }

  @Get('GetTransactionStatus')
  byTrackingId(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    this.lookup(req, res, 'byTrackingId');
  }

  @Get('GetTransactionByMerchantReference')
  byMerchantReference(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    this.lookup(req, res, 'byMerchantReference');
  }

  @Get('QueryStatusByConfirmationCode')
  byConfirmationCode(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    this.lookup(req, res, 'byConfirmationCode');
  }

  @Post('CancelOrder')
  cancel(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.actions.cancel(req.merchant.uid, bindBody(req)));
  }

  @Post('RefundRequest')
  refund(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.actions.refund(req.merchant.uid, bindBody(req)));
  }

  private lookup(req: AuthenticatedRequest, res: FastifyReply, endpoint: LookupEndpoint): void {
    const value = queryParameter(req, LOOKUP_PARAMETERS[endpoint]);
    const path = `${req.protocol}://${req.host}${req.url.split('?')[0]}`;
    sendGatewayReply(res, this.actions.lookup(req.merchant.uid, endpoint, value, path));
  }
}
