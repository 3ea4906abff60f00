import { GatewayOperation } from './gateway-errors';
import { GatewayAcknowledgement } from './gateway-types';
import { gatewayErrorFromBody, isJsonObject, malformedResponse } from './parse-error';

/**
 * Cancel and refund answer {status, message} with no error key: "200" accepted, "500" refused.
 * A refused one is an answer, not an exception; auth and transport failures still throw.
 */
export function parseAcknowledgement(
  operation: GatewayOperation,
  httpStatus: number,
  body: unknown,
): GatewayAcknowledgement {
  const error = gatewayErrorFromBody(operation, httpStatus, body);
  if (error) throw error;
  if (!isJsonObject(body) || (typeof body.status !== 'string' && typeof body.status !== 'number')) {
    throw malformedResponse(operation, httpStatus, [], 'acknowledgement without status');
  }
  const status = String(body.status);
  return {
    accepted: status === '200',
    status,
    message: typeof body.message === 'string' ? body.message : '',
  };
}
