import { GatewayRejectedError } from '@app/gateway-client';
import { bounded, CheckoutExceptionFilter, ERROR_BOUNDS } from './checkout-exception.filter';

describe('error answers keep within the bounds the OpenAPI document declares', () => {
  const filter = new CheckoutExceptionFilter();

  it("cuts the gateway's long messages, their number, its code and its fields", () => {
    const long = 'x'.repeat(ERROR_BOUNDS.gatewayMessage + 50);
    const refusal = new GatewayRejectedError({
      operation: 'submitOrder',
      httpStatus: 200,
      errorType: 'api_error',
      code: 'C'.repeat(ERROR_BOUNDS.gatewayCode + 1),
      messages: Array.from({ length: ERROR_BOUNDS.gatewayMessages + 5 }, () => long),
      fieldMessages: Object.fromEntries(
        Array.from({ length: ERROR_BOUNDS.gatewayFields + 3 }, (_, i) => [`field${i}`, [long]]),
      ),
    });
    const [status, body] = filter.toHttp(refusal);
    const error = bounded(body).error as unknown as {
      message: string;
      gateway: { code: string; messages: string[]; fields: Record<string, string[]> };
    };
    expect(status).toBe(502);
    expect(error.message).toHaveLength(ERROR_BOUNDS.message);
    expect(error.gateway.code).toHaveLength(ERROR_BOUNDS.gatewayCode);
    expect(error.gateway.messages).toHaveLength(ERROR_BOUNDS.gatewayMessages);
    expect(error.gateway.messages[0]).toHaveLength(ERROR_BOUNDS.gatewayMessage);
    expect(Object.keys(error.gateway.fields)).toHaveLength(ERROR_BOUNDS.gatewayFields);
    expect(error.gateway.fields.field0[0]).toHaveLength(ERROR_BOUNDS.gatewayMessage);
  });

  it('cuts a long list of failing fields, and leaves a short answer and a passed-through body as they are', () => {
    const errors = Array.from({ length: ERROR_BOUNDS.fields + 10 }, (_, i) => ({
      field: `f${i}`,
      reason: 'r'.repeat(ERROR_BOUNDS.reason + 1),
    }));
    const cut = bounded({ error: { code: 'validation_failed', message: 'bad', errors } });
    const problems = cut.error.errors as { reason: string }[];
    expect(problems).toHaveLength(ERROR_BOUNDS.fields);
    expect(problems[0].reason).toHaveLength(ERROR_BOUNDS.reason);

    const stored = {
      error: {
        code: 'gateway_error' as const,
        message: 'refused earlier',
        gateway: { kind: 'rejected', code: null, messages: ['Invalid currency'] },
      },
    };
    expect(bounded(stored)).toEqual(stored);
    const report = { status: 'error', info: {} } as unknown as Parameters<typeof bounded>[0];
    expect(bounded(report)).toBe(report);
  });
});
