import fc from 'fast-check';
import { GatewayError } from './gateway-errors';
import { GatewayDateError, parseEastAfricaDate, parseGatewayUtcDate } from './gateway-dates';
import { parseAcknowledgement } from './parse-acknowledgement';
import { parseJsonBody, splitGatewayMessages } from './parse-error';
import { judgeIpn, readIpnFields } from './parse-ipn-notification';
import { parseIpnList, parseIpnRegistration } from './parse-ipn-registration';
import { parsePushResponse, parseSubmitOrderResponse } from './parse-order';
import { parseTokenResponse, readJwtTimes } from './parse-token';
import { TransactionLookup } from './gateway-types';
import { parseTransactionLookup } from './parse-transaction-status';

/**
 * Whatever the gateway answers, the client's parsers return their clean type or throw a typed
 * GatewayError: never a TypeError from a field of an unexpected type, never an invalid Date.
 * FUZZ_RUNS (npm run fuzz) sets the cases per parser; 300 in the quick profile.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Field names the real answers use (test/fixtures/real-sandbox), with odd values mixed in. */
const FIELDS = [
  'token',
  'expiryDate',
  'error',
  'status',
  'message',
  'order_tracking_id',
  'merchant_reference',
  'redirect_url',
  'ipn_id',
  'url',
  'created_date',
  'ipn_notification_type_description',
  'ipn_status',
  'ipn_status_decription',
  'payment_method',
  'amount',
  'confirmation_code',
  'payment_status_description',
  'description',
  'payment_account',
  'call_back_url',
  'status_code',
  'payment_status_code',
  'currency',
  'subscription_transaction_info',
  'account_number',
  'error_type',
  'code',
];
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '',
    ' ',
    '200',
    '500',
    '0',
    '1',
    '2',
    '3',
    'null',
    '2024-03-18T18:25:46.75',
    '2024-02-30T10:00:00',
    '2024-03-18 18:25:46',
    'eyJ.eyJ.x',
    'KES',
    '10.00',
    '1e309',
    '-0',
    'payment_details_not_found',
    'Pending Payment',
    'api_error',
    'a|b||c',
  ),
  fc.constantFrom(null, 0, -1, 200, 500, 1.5, Number.MAX_SAFE_INTEGER + 2, [], {}),
);
const errorObject = fc.record(
  { error_type: oddValue, code: oddValue, message: oddValue },
  { requiredKeys: [] },
);
const gatewayShaped = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...FIELDS), oddValue, { maxKeys: 12 }),
    fc.option(errorObject, { nil: undefined }),
  )
  .map(([fields, error]) => (error === undefined ? fields : { ...fields, error }));
/** A completed lookup as the gateway answers it, with up to three fields given odd values. */
const COMPLETED_LOOKUP: Record<string, unknown> = {
  payment_method: 'Visa',
  amount: 1500,
  created_date: '2024-03-18T18:25:46.75',
  confirmation_code: 'ABC123XYZ',
  order_tracking_id: 'b945e4af-80a5-4ec1-8706-e03f8332fb04',
  payment_status_description: 'Completed',
  description: null,
  message: 'Request processed successfully',
  payment_account: '476173**0010',
  call_back_url: 'https://shop.example/return',
  status_code: 1,
  merchant_reference: 'ORD-1',
  payment_status_code: '',
  currency: 'KES',
  error: { error_type: null, code: null, message: null },
  status: '200',
};
const mutatedLookup = fc
  .tuple(
    fc.subarray(Object.keys(COMPLETED_LOOKUP), { maxLength: 3 }),
    fc.array(oddValue, { minLength: 3, maxLength: 3 }),
  )
  .map(([names, values]) => {
    const body = { ...COMPLETED_LOOKUP };
    names.forEach((name, index) => (body[name] = values[index]));
    return body;
  });
const anyBody = fc.oneof(
  gatewayShaped,
  mutatedLookup,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(undefined),
);
const httpStatus = fc.oneof(fc.constantFrom(200, 401, 403, 404, 429, 500, 502, 503), fc.integer());

/** The parser answered (value checked by `valid`) or threw a GatewayError; nothing else. */
function typedOutcome<T>(parse: () => T, valid: (value: T) => boolean = () => true): boolean {
  let value: T;
  try {
    value = parse();
  } catch (error) {
    if (error instanceof GatewayError) return false;
    throw error;
  }
  if (!valid(value)) throw new Error(`an invalid value: ${JSON.stringify(value)}`);
  return true;
}

const validDate = (date: Date) => date instanceof Date && !Number.isNaN(date.getTime());

describe('the gateway client parsers, fuzzed', () => {
  it('token answers', () => {
    fc.assert(
      fc.property(httpStatus, anyBody, (status, body) => {
        typedOutcome(
          () => parseTokenResponse(status, body),
          (token) => token.token.length > 0 && Number.isFinite(token.expiresAt),
        );
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const times = readJwtTimes(text);
        if (times !== null && !Number.isFinite(times.exp)) throw new Error('exp not a number');
      }),
      { numRuns: RUNS },
    );
  });

  it('order and push answers', () => {
    fc.assert(
      fc.property(httpStatus, anyBody, (status, body) => {
        typedOutcome(
          () => parseSubmitOrderResponse(status, body),
          (order) => typeof order.orderTrackingId === 'string' && order.orderTrackingId !== '',
        );
        typedOutcome(() => parsePushResponse(status, body));
      }),
      { numRuns: RUNS },
    );
  });

  it('transaction lookups', () => {
    const validLookup = (lookup: TransactionLookup) =>
      lookup.kind === 'not_found' ||
      (validDate(lookup.record.createdAt) && typeof lookup.record.currency === 'string');
    fc.assert(
      fc.property(httpStatus, anyBody, (status, body) => {
        typedOutcome(
          () => parseTransactionLookup('getTransactionStatus', status, body),
          validLookup,
        );
      }),
      { numRuns: RUNS },
    );
    // Recorded answers with a few fields changed reach the parsing of the record itself.
    let found = 0;
    fc.assert(
      fc.property(mutatedLookup, (body) => {
        const parse = () => parseTransactionLookup('getTransactionStatus', 200, body);
        if (typedOutcome(parse, validLookup)) found += 1;
      }),
      { numRuns: RUNS },
    );
    expect(found).toBeGreaterThan(RUNS / 10);
  });

  it('IPN registrations, lists and acknowledgements', () => {
    fc.assert(
      fc.property(
        httpStatus,
        anyBody,
        fc.array(gatewayShaped, { maxLength: 3 }),
        (s, body, list) => {
          typedOutcome(
            () => parseIpnRegistration(s, body),
            (r) => validDate(r.createdAt),
          );
          typedOutcome(() => parseIpnList(s, list));
          typedOutcome(() => parseIpnList(s, body));
          typedOutcome(() => parseAcknowledgement('requestRefund', s, body));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('dates: a valid instant or a GatewayDateError', () => {
    const dateText = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc
        .tuple(
          fc.integer({ min: 0, max: 9999 }),
          fc.integer({ min: 0, max: 13 }),
          fc.integer({ min: 0, max: 32 }),
          fc.integer({ min: 0, max: 25 }),
          fc.integer({ min: 0, max: 61 }),
          fc.constantFrom('', '.75', '.1234567', 'Z', '+03:00', '-05:30'),
        )
        .map(
          ([y, mo, d, h, mi, tail]) =>
            `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:00${tail}`,
        ),
      oddValue,
    );
    fc.assert(
      fc.property(dateText, (text) => {
        for (const parse of [parseGatewayUtcDate, parseEastAfricaDate]) {
          try {
            if (!validDate(parse(text))) throw new Error(`invalid date from ${String(text)}`);
          } catch (error) {
            if (!(error instanceof GatewayDateError)) throw error;
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('raw bodies, messages and notifications never throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), oddValue, oddValue, (text, query, body) => {
        parseJsonBody(text);
        for (const message of splitGatewayMessages(body)) {
          if (typeof message !== 'string' || message === '') throw new Error('empty message');
        }
        const verdict = judgeIpn(readIpnFields(query, typeof body === 'string' ? body : text));
        if (verdict.kind === 'reject' && verdict.reason === '') throw new Error('no reason');
      }),
      { numRuns: RUNS },
    );
  });
});
