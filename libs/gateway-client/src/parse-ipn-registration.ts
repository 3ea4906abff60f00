import { IpnId } from '@app/domain';
import { parseGatewayUtcDate } from './gateway-dates';
import { GatewayOperation } from './gateway-errors';
import { IpnMethod, IpnRegistration } from './gateway-types';
import { gatewayErrorFromBody, isJsonObject, JsonObject, malformedResponse } from './parse-error';

const NOTIFICATION_TYPES: Record<number, IpnMethod> = { 0: 'GET', 1: 'POST' };

function methodOf(entry: JsonObject): IpnMethod | null {
  const description = entry.ipn_notification_type_description;
  if (typeof description === 'string') {
    const upper = description.toUpperCase();
    if (upper === 'GET' || upper === 'POST') return upper;
  }
  return typeof entry.notification_type === 'number'
    ? (NOTIFICATION_TYPES[entry.notification_type] ?? null)
    : null;
}

function readRegistration(
  operation: GatewayOperation,
  httpStatus: number,
  entry: unknown,
): IpnRegistration {
  if (
    !isJsonObject(entry) ||
    typeof entry.ipn_id !== 'string' ||
    entry.ipn_id === '' ||
    typeof entry.url !== 'string'
  ) {
    throw malformedResponse(operation, httpStatus, [], 'IPN entry without ipn_id or url');
  }
  let createdAt: Date;
  try {
    createdAt = parseGatewayUtcDate(entry.created_date);
  } catch {
    throw malformedResponse(operation, httpStatus, [], 'IPN entry with an unreadable created_date');
  }
  return {
    ipnId: IpnId(entry.ipn_id),
    url: entry.url,
    method: methodOf(entry),
    createdAt,
    // The status text is spelled ipn_status_decription; the integer is what we read.
    active: entry.ipn_status === undefined || entry.ipn_status === null || entry.ipn_status === 1,
  };
}

export function parseIpnRegistration(httpStatus: number, body: unknown): IpnRegistration {
  const error = gatewayErrorFromBody('registerIpn', httpStatus, body);
  if (error) throw error;
  return readRegistration('registerIpn', httpStatus, body);
}

/** GET /URLSetup/GetIpnList answers a bare array; an error still comes as the envelope object. */
export function parseIpnList(httpStatus: number, body: unknown): IpnRegistration[] {
  if (Array.isArray(body)) {
    return body.map((entry) => readRegistration('listIpns', httpStatus, entry));
  }
  throw (
    gatewayErrorFromBody('listIpns', httpStatus, body) ??
    malformedResponse('listIpns', httpStatus, [], 'IPN list is not an array')
  );
}
