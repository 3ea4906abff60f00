import { Controller, Delete, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DecimalLiteral, isPlainDecimal } from '../http/exact-json';
import { decimalField, stringField } from '../http/fields';
import { GatewayReply, messageOnly, ok, sendGatewayReply } from '../http/gateway-reply';
import { bindBody, fieldsOf } from '../http/raw-body';
import { GATEWAY_OPERATION_NAMES, GatewayOperation } from '../http/route-table';
import { IpnRegistry } from '../ipn/ipn-registry.service';
import { uidOf } from '../auth/token.service';
import {
  DeliveryMode,
  NotificationDispatcher,
} from '../notifications/notification-dispatcher.service';
import { OrderStore } from '../orders/order-store';
import type { SandboxOrder } from '../orders/sandbox-order';
import { Outcome, SettlementRefused, SettlementService } from '../orders/settlement.service';
import { FaultMode, TrafficService } from './traffic.service';

const OUTCOMES: readonly Outcome[] = ['completed', 'failed', 'reversed'];
const METHODS = { card: 'card', mobile_money: 'mpesa' } as const;
const MODES: readonly DeliveryMode[] = ['deliver', 'drop', 'delay', 'duplicate'];
const FAULT_MODES: readonly FaultMode[] = ['timeout', 'http500', 'slow', 'reset', 'none'];

function optionalInt(fields: Record<string, unknown>, name: string): number | undefined | 'bad' {
  const text = decimalField(fields, name);
  if (text === undefined) return undefined;
  return /^\d+$/.test(text) ? Number(text) : 'bad';
}

/** Test and demo controls, mounted only when SANDBOX_CONTROL=1. See apps/sandbox/README.md. */
@Controller('__sandbox')
export class ControlController {
  constructor(
    private readonly store: OrderStore,
    private readonly settlement: SettlementService,
    private readonly notifications: NotificationDispatcher,
    private readonly traffic: TrafficService,
    private readonly ipns: IpnRegistry,
  ) {}

  /** One merchant's orders, newest first: `?consumer_key=` names the merchant (up to 100). */
  @Get('orders')
  orders(
    @Query('consumer_key') consumerKey: string | undefined,
    @Query('limit') limit: string | undefined,
    @Res() res: FastifyReply,
  ): void {
    if (!consumerKey) {
      sendGatewayReply(
        res,
        messageOnly(400, 'consumer_key names the merchant whose orders to list'),
      );
      return;
    }
    const count = Math.min(Math.max(Number(limit) || 100, 1), 100);
    const orders = this.store.latestOf(uidOf(consumerKey), count);
    sendGatewayReply(res, ok({ orders: orders.map((order) => summary(order, this.store)) }));
  }

  @Get('orders/:orderTrackingId')
  order(@Param('orderTrackingId') id: string, @Res() res: FastifyReply): void {
    const order = this.store.byTracking(id);
    sendGatewayReply(
      res,
      order ? ok(summary(order, this.store)) : messageOnly(404, 'Unknown order'),
    );
  }

  @Post('orders/:orderTrackingId/outcome')
  outcome(
    @Param('orderTrackingId') id: string,
    @Req() req: FastifyRequest,
    @Res() res: FastifyReply,
  ): void {
    sendGatewayReply(res, this.settle(id, fieldsOf(bindBody(req))));
  }

  @Post('subscriptions/:orderTrackingId/charge')
  charge(
    @Param('orderTrackingId') id: string,
    @Req() req: FastifyRequest,
    @Res() res: FastifyReply,
  ): void {
    const parent = this.store.byTracking(id);
    if (!parent) return sendGatewayReply(res, messageOnly(404, 'Unknown order'));
    const amount = decimalField(fieldsOf(bindBody(req)), 'amount');
    if (amount !== undefined && !isPlainDecimal(amount)) {
      return sendGatewayReply(res, messageOnly(400, 'amount must be a plain decimal'));
    }
    try {
      sendGatewayReply(
        res,
        ok(summary(this.settlement.chargeSubscription(parent, amount), this.store)),
      );
    } catch (error) {
      if (!(error instanceof SettlementRefused)) throw error;
      sendGatewayReply(res, messageOnly(409, error.message));
    }
  }

  @Post('notifications')
  configureNotifications(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    const fields = fieldsOf(bindBody(req));
    const mode = stringField(fields, 'mode') as DeliveryMode;
    const delayMs = optionalInt(fields, 'delayMs');
    const copies = optionalInt(fields, 'copies');
    if (!MODES.includes(mode) || delayMs === 'bad' || copies === 'bad') {
      return sendGatewayReply(
        res,
        messageOnly(400, `mode must be one of ${MODES.join(', ')}; delayMs and copies integers`),
      );
    }
    sendGatewayReply(res, ok(this.notifications.configure({ mode, delayMs, copies })));
  }

  @Get('notifications')
  notificationLog(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    const orderTrackingId = (req.query as Record<string, string | undefined>).orderTrackingId;
    sendGatewayReply(
      res,
      ok({
        settings: this.notifications.current,
        records: this.notifications.records(orderTrackingId),
      }),
    );
  }

  @Get('requests')
  requests(@Res() res: FastifyReply): void {
    sendGatewayReply(res, ok(this.traffic.snapshot()));
  }

  @Delete('requests')
  resetRequests(@Res() res: FastifyReply): void {
    this.traffic.resetCounts();
    sendGatewayReply(res, ok(this.traffic.snapshot()));
  }

  @Post('faults')
  fault(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    const fields = fieldsOf(bindBody(req));
    const operation = stringField(fields, 'operation') as GatewayOperation | '*';
    const mode = stringField(fields, 'mode') as FaultMode;
    const delayMs = optionalInt(fields, 'delayMs');
    const times = optionalInt(fields, 'times');
    const percent = optionalInt(fields, 'percent');
    const pathContains = stringField(fields, 'pathContains');
    const known = operation === '*' || GATEWAY_OPERATION_NAMES.includes(operation);
    const percentBad =
      percent === 'bad' || (percent !== undefined && (percent < 1 || percent > 100));
    if (
      !known ||
      !FAULT_MODES.includes(mode) ||
      delayMs === 'bad' ||
      times === 'bad' ||
      percentBad
    ) {
      return sendGatewayReply(
        res,
        messageOnly(
          400,
          `operation must be * or one of ${GATEWAY_OPERATION_NAMES.join(', ')}; mode one of ${FAULT_MODES.join(', ')}; percent 1-100`,
        ),
      );
    }
    const defaultDelay = mode === 'slow' ? 2000 : 60_000;
    this.traffic.setFault(
      operation,
      mode,
      delayMs ?? defaultDelay,
      times,
      pathContains || undefined,
      percent as number | undefined,
    );
    sendGatewayReply(res, ok({ faults: this.traffic.listFaults() }));
  }

  @Get('faults')
  faults(@Res() res: FastifyReply): void {
    sendGatewayReply(res, ok({ faults: this.traffic.listFaults() }));
  }

  /** Back to defaults between tests: counters, faults, delivery mode, IPN rate-limit clock. */
  @Post('reset')
  reset(@Res() res: FastifyReply): void {
    this.traffic.resetCounts();
    this.traffic.clearFaults();
    this.notifications.configure({ mode: 'deliver' });
    this.ipns.resetRateLimit();
    sendGatewayReply(res, ok({ reset: true }));
  }

  private settle(id: string, fields: Record<string, unknown>): GatewayReply {
    const order = this.store.byTracking(id);
    if (!order) return messageOnly(404, 'Unknown order');
    const outcome = stringField(fields, 'outcome') as Outcome;
    const method = (stringField(fields, 'method') ?? 'card') as keyof typeof METHODS;
    if (!OUTCOMES.includes(outcome) || !(method in METHODS)) {
      return messageOnly(
        400,
        'outcome must be completed|failed|reversed; method card|mobile_money',
      );
    }
    const instrument = method === 'mobile_money' && order.network ? order.network : METHODS[method];
    const failureCode =
      stringField(fields, 'payment_status_code') ??
      (outcome === 'failed' && method === 'mobile_money'
        ? 'request_terminated_by_user'
        : undefined);
    const confirmationCode = stringField(fields, 'confirmation_code');
    const account = stringField(fields, 'payment_account');
    try {
      this.settlement.settle(order, {
        outcome,
        instrument,
        failureCode,
        ...(confirmationCode === undefined ? {} : { confirmationCode }),
        ...(account === undefined ? {} : { account }),
      });
    } catch (error) {
      if (!(error instanceof SettlementRefused)) throw error;
      return messageOnly(409, error.message);
    }
    return ok(summary(order, this.store));
  }
}

/** The sandbox's own view of an order (not a gateway shape). */
function summary(order: SandboxOrder, store: OrderStore): unknown {
  const code = order.payment?.confirmationCode ?? '';
  const refund = store.refundFor(code);
  return {
    order_tracking_id: order.orderTrackingId,
    // Whose order it is: a merchant sees (looks up, refunds, cancels) only its own.
    merchant: order.merchantId,
    merchant_reference: order.merchantReference,
    generated_reference: order.generatedReference,
    channel: order.channel,
    state: order.state,
    amount: new DecimalLiteral(order.amount),
    currency: order.currency,
    account_number: order.accountNumber,
    confirmation_code: order.payment?.confirmationCode ?? null,
    payment_instrument: order.payment?.instrument ?? null,
    payment_status_code: order.payment?.statusCode ?? null,
    refund: refund
      ? { amount: new DecimalLiteral(refund.amount), at: refund.at.toISOString() }
      : null,
    refund_requests: store.refundRequestsFor(code),
  };
}
