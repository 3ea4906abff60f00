/** The gateway's operations, their paths under the base and their methods (section 4). */
export const GATEWAY_BASE_PATH = '/pesapalv3/api';

export const GATEWAY_OPERATIONS = {
  RequestToken: { method: 'POST', path: '/Auth/RequestToken' },
  RegisterIPN: { method: 'POST', path: '/URLSetup/RegisterIPN' },
  GetIpnList: { method: 'GET', path: '/URLSetup/GetIpnList' },
  SubmitOrderRequest: { method: 'POST', path: '/Transactions/SubmitOrderRequest' },
  Stk: { method: 'POST', path: '/transactions/stk' },
  GetTransactionStatus: { method: 'GET', path: '/Transactions/GetTransactionStatus' },
  GetTransactionByMerchantReference: {
    method: 'GET',
    path: '/Transactions/GetTransactionByMerchantReference',
  },
  QueryStatusByConfirmationCode: {
    method: 'GET',
    path: '/Transactions/QueryStatusByConfirmationCode',
  },
  CancelOrder: { method: 'POST', path: '/Transactions/CancelOrder' },
  RefundRequest: { method: 'POST', path: '/Transactions/RefundRequest' },
} as const;

export type GatewayOperation = keyof typeof GATEWAY_OPERATIONS;
export const GATEWAY_OPERATION_NAMES = Object.keys(GATEWAY_OPERATIONS) as GatewayOperation[];

const byPath = new Map<string, GatewayOperation>(
  GATEWAY_OPERATION_NAMES.map((name) => [
    `${GATEWAY_BASE_PATH}${GATEWAY_OPERATIONS[name].path}`.toLowerCase(),
    name,
  ]),
);

/** The operation at a request path (any case, query and trailing slash ignored). */
export function operationAtPath(url: string): GatewayOperation | undefined {
  const path = url.split('?')[0].replace(/\/+$/, '').toLowerCase();
  return byPath.get(path);
}
