import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { SandboxConfig } from '@app/config';
import {
  ERRORS,
  FOREIGN_PAYMENT_METHODS,
  MAX_MERCHANT_REFERENCE_LENGTH,
  MODEL_STATE_MESSAGE,
  MODEL_STATE_UNPARSABLE,
  ORDER_REQUIRED_FIELDS,
  PUSH_BUSINESS_NUMBER,
  PUSH_PAYMENT_METHODS,
  PUSH_REQUIRED_FIELDS,
  VALIDATION_ERROR,
  modelStateKey,
  modelStateRequired,
} from '../gateway-choices';
import { gatewayNow } from '../gateway-time';
import { objectField, presentString, stringField } from '../http/fields';
import { GatewayReply, ok } from '../http/gateway-reply';
import { BoundBody, fieldsOf } from '../http/raw-body';
import { IpnRegistry } from '../ipn/ipn-registry.service';
import { SANDBOX_CONFIG } from '../sandbox-config.token';
import { OrderStore } from './order-store';
import { checkOrderTerms, missingFields, OrderTerms, requiredMessage } from './order-rules';
import { pushReference } from './payment-codes';
import { PushSimulator } from './push-simulator.service';
import type { SandboxOrder } from './sandbox-order';

type GatewayErrorBody = { error_type: string; code: string; message: string };

/** SubmitOrderRequest and push (sections 2.3–2.6). */
@Injectable()
export class OrderService {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly store: OrderStore,
    private readonly ipns: IpnRegistry,
    private readonly push: PushSimulator,
  ) {}

  hostedPageUrl(orderTrackingId: string): string {
    return `${this.config.publicUrl}/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=${orderTrackingId}`;
  }

  submit(merchantId: string, body: BoundBody): GatewayReply {
    const fields = fieldsOf(body);
    const missing = missingFields(fields, ORDER_REQUIRED_FIELDS);
    if (missing.length > 0) {
      return this.orderFailure({
        ...VALIDATION_ERROR,
        message: missing.map(requiredMessage).join('|'),
      });
    }
    const id = stringField(fields, 'id') as string;
    if (id.length > MAX_MERCHANT_REFERENCE_LENGTH) return this.orderFailure(ERRORS.genericDecline);
    const original = this.store.bySentId(merchantId, id);
    if (original) return this.orderAnswer(original);
    const { terms, problems } = checkOrderTerms(fields);
    if (problems.length > 0) {
      return this.orderFailure({ ...VALIDATION_ERROR, message: problems.join('|') });
    }
    const notificationId = presentString(fields, 'notification_id') as string;
    if (!this.ipns.find(merchantId, notificationId)) return this.orderFailure(ERRORS.invalidIpnId);
    const order = this.create(merchantId, id, fields, terms, 'hosted');
    return this.orderAnswer(order);
  }

  stk(merchantId: string, body: BoundBody): GatewayReply {
    const fields = fieldsOf(body);
    const missing = missingFields(fields, PUSH_REQUIRED_FIELDS);
    if (body.kind === 'malformed' || missing.length > 0) {
      const modelState: Record<string, string[]> = {};
      if (body.kind === 'malformed') modelState.request = [MODEL_STATE_UNPARSABLE];
      for (const field of missing) modelState[modelStateKey(field)] = [modelStateRequired(field)];
      return { status: 400, body: { message: MODEL_STATE_MESSAGE, modelState } };
    }
    const id = stringField(fields, 'id') as string;
    if (id.length > MAX_MERCHANT_REFERENCE_LENGTH) return this.pushFailure(ERRORS.genericDecline);
    const method = (presentString(fields, 'payment_method') as string).trim().toUpperCase();
    const network = PUSH_PAYMENT_METHODS[method];
    if (network === undefined || (FOREIGN_PAYMENT_METHODS as readonly string[]).includes(method)) {
      return this.pushFailure(ERRORS.invalidPaymentMethod);
    }
    const original = this.store.bySentId(merchantId, id);
    if (original) return this.pushAnswer(original);
    const { terms, problems } = checkOrderTerms(fields);
    if (problems.length > 0) {
      return this.pushFailure({ ...VALIDATION_ERROR, message: problems.join('|') });
    }
    const notificationId = presentString(fields, 'notification_id') as string;
    if (!this.ipns.find(merchantId, notificationId)) return this.pushFailure(ERRORS.invalidIpnId);
    const order = this.create(merchantId, id, fields, terms, 'push');
    order.msisdn = stringField(fields, 'msisdn') as string;
    order.network = network;
    this.push.prompt(order);
    return this.pushAnswer(order);
  }

  private create(
    merchantId: string,
    id: string,
    fields: Record<string, unknown>,
    terms: OrderTerms,
    channel: 'hosted' | 'push',
  ): SandboxOrder {
    const order: SandboxOrder = {
      orderTrackingId: randomUUID(),
      merchantId,
      merchantReference: id,
      generatedReference: channel === 'push' ? this.freshPushReference() : null,
      channel,
      amount: terms.amount,
      currency: terms.currency,
      description: stringField(fields, 'description') ?? '',
      callbackUrl: terms.callbackUrl,
      cancellationUrl: terms.cancellationUrl,
      notificationId: (presentString(fields, 'notification_id') as string).toLowerCase(),
      accountNumber: terms.accountNumber,
      billingAddress: objectField(fields, 'billing_address') ?? {},
      subscription: terms.subscription,
      msisdn: null,
      network: null,
      createdAt: gatewayNow(),
      state: 'pending',
      payment: null,
      recurring: null,
    };
    this.store.add(order);
    return order;
  }

  private freshPushReference(): string {
    for (;;) {
      const reference = pushReference();
      if (!this.store.generatedReferenceTaken(reference)) return reference;
    }
  }

  private orderAnswer(order: SandboxOrder): GatewayReply {
    return ok({
      order_tracking_id: order.orderTrackingId,
      merchant_reference: order.merchantReference,
      redirect_url: order.channel === 'hosted' ? this.hostedPageUrl(order.orderTrackingId) : null,
      error: null,
      status: '200',
    });
  }

  private orderFailure(error: GatewayErrorBody): GatewayReply {
    return ok({
      order_tracking_id: null,
      merchant_reference: null,
      redirect_url: null,
      error,
      status: '500',
    });
  }

  private pushAnswer(order: SandboxOrder): GatewayReply {
    const reference = order.generatedReference ?? order.merchantReference;
    return ok({
      order_tracking_id: order.orderTrackingId,
      merchant_reference: reference,
      business_number: PUSH_BUSINESS_NUMBER,
      account_number: reference,
      redirect_url: null,
      error: null,
      status: '200',
    });
  }

  private pushFailure(error: GatewayErrorBody): GatewayReply {
    return ok({
      order_tracking_id: null,
      merchant_reference: null,
      business_number: null,
      account_number: null,
      redirect_url: null,
      error,
      status: '500',
    });
  }
}
