import { cutText } from '@app/domain';
import {
  GatewayAcknowledgement,
  GatewayClient,
  GatewayError,
  GatewayMalformedResponseError,
  GatewayUnavailableError,
  RefundRequest,
} from '@app/gateway-client';
import { REFUND_MESSAGE_MAX_LENGTH } from '../orders/order-view';

/** What the gateway's answer (or silence) to a refund request means for its record. */
export type RefundVerdict =
  | { status: 'accepted'; gatewayStatus: '200'; message: string }
  | { status: 'rejected'; gatewayStatus: string; message: string }
  | { status: 'unknown'; gatewayStatus: null; message: string };

/**
 * The one gateway call of a refund. Anything that may have reached the gateway (a timeout, an
 * unreadable answer) leaves the outcome unknown; a refusal before processing is a rejection.
 */
export async function askForRefund(
  gateway: GatewayClient,
  request: RefundRequest,
): Promise<RefundVerdict> {
  const verdict = await verdictOf(gateway, request);
  return { ...verdict, message: cutText(verdict.message, REFUND_MESSAGE_MAX_LENGTH) };
}

async function verdictOf(gateway: GatewayClient, request: RefundRequest): Promise<RefundVerdict> {
  let answer: GatewayAcknowledgement;
  try {
    answer = await gateway.requestRefund(request);
  } catch (error) {
    if (
      error instanceof GatewayUnavailableError ||
      error instanceof GatewayMalformedResponseError
    ) {
      return { status: 'unknown', gatewayStatus: null, message: error.message };
    }
    if (error instanceof GatewayError) {
      // Refused before the refund was processed (credentials, parameters): nothing happened.
      return {
        status: 'rejected',
        gatewayStatus: error.code ?? error.kind,
        message: error.message,
      };
    }
    throw error;
  }
  return answer.accepted
    ? { status: 'accepted', gatewayStatus: '200', message: answer.message }
    : { status: 'rejected', gatewayStatus: answer.status, message: answer.message };
}
