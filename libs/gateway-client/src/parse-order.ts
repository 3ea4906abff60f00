import { MerchantReference, OrderTrackingId, PushMerchantReference } from '@app/domain';
import { GatewayOperation } from './gateway-errors';
import { PushedOrder, SubmittedOrder } from './gateway-types';
import { gatewayErrorFromBody, isJsonObject, JsonObject, malformedResponse } from './parse-error';

export const REDIRECT_URL_MAX_LENGTH = 2048;

function successBody(
  operation: GatewayOperation,
  httpStatus: number,
  body: unknown,
  fields: string[],
): JsonObject {
  const error = gatewayErrorFromBody(operation, httpStatus, body);
  if (error) throw error;
  const missing = isJsonObject(body)
    ? fields.filter((field) => typeof body[field] !== 'string' || body[field] === '')
    : fields;
  if (!isJsonObject(body) || missing.length > 0) {
    throw malformedResponse(operation, httpStatus, [], `answer lacks ${missing.join(', ')}`);
  }
  return body;
}

export function parseSubmitOrderResponse(httpStatus: number, body: unknown): SubmittedOrder {
  const ok = successBody('submitOrder', httpStatus, body, [
    'order_tracking_id',
    'merchant_reference',
    'redirect_url',
  ]);
  // The page the customer is sent to: a browser takes nothing longer, and our answer declares it.
  if ((ok.redirect_url as string).length > REDIRECT_URL_MAX_LENGTH) {
    throw malformedResponse('submitOrder', httpStatus, [], 'redirect_url is too long');
  }
  return {
    orderTrackingId: OrderTrackingId(ok.order_tracking_id as string),
    merchantReference: MerchantReference(ok.merchant_reference as string),
    redirectUrl: ok.redirect_url as string,
  };
}

/** merchant_reference here is generated and does NOT echo the id sent; keep it apart from ours. */
export function parsePushResponse(httpStatus: number, body: unknown): PushedOrder {
  const ok = successBody('pushMobileMoney', httpStatus, body, ['order_tracking_id']);
  const text = (value: unknown): string =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  return {
    orderTrackingId: OrderTrackingId(ok.order_tracking_id as string),
    pushMerchantReference: PushMerchantReference(text(ok.merchant_reference)),
    businessNumber: text(ok.business_number),
    accountNumber: text(ok.account_number),
  };
}
