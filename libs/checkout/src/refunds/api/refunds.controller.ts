import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminKeyGuard, CallerKey } from '../../http/api-key.guards';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import {
  CreateRefundDto,
  ListRefundsQuery,
  RefundDoublePaymentDto,
  ResolveRefundDto,
} from './refund.dto';
import { RefundListService } from './refund-list.service';
import { RefundService } from './refund.service';

@ApiTags('admin: refunds')
@ApiBearerAuth()
@UseGuards(AdminKeyGuard)
@Controller('v1/admin')
export class RefundsController {
  constructor(
    private readonly refunds: RefundService,
    private readonly listing: RefundListService,
    private readonly doublePayments: DoublePaymentRefunds,
  ) {}

  /** 201 with the refund as recorded: accepted, rejected by the gateway, or unknown (timeout). */
  @Post('orders/:reference/refunds')
  async request(
    @Param('reference') reference: string,
    @Body() body: CreateRefundDto,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    const refund = await this.refunds.request(
      reference,
      {
        amount: body.amount,
        reason: body.reason,
        requestedBy: body.requested_by,
        confirmPartial: body.confirm_partial === true,
      },
      caller,
    );
    return { refund };
  }

  /**
   * A double payment, in one action: the second payment (the earlier attempt that paid an order
   * already paid) is refunded in full. 201 with its refund: accepted, rejected or unknown.
   */
  @Post('orders/:reference/attempts/:attempt/refund')
  async refundDoublePayment(
    @Param('reference') reference: string,
    @Param('attempt', ParseIntPipe) attempt: number,
    @Body() body: RefundDoublePaymentDto,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    const refund = await this.doublePayments.refund(
      reference,
      attempt,
      { reason: body.reason, requestedBy: body.requested_by },
      caller.name,
    );
    return { refund };
  }

  @Get('refunds')
  list(@Query() query: ListRefundsQuery) {
    return this.listing.list(query);
  }

  @Post('refunds/:id/resolve')
  @HttpCode(200)
  async resolve(
    @Param('id') id: string,
    @Body() body: ResolveRefundDto,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return { refund: await this.refunds.resolve(id, body.status, body.note, caller) };
  }
}
