import { GatewayAuthError, GatewayMalformedResponseError } from './gateway-errors';
import { parseTransactionLookup } from './parse-transaction-status';
import { expiredTokenAnswer, recordedResponse } from './testing/recorded-fixtures';

const nullError = { error_type: null, code: null, message: null, call_back_url: null };

const completedCard = {
  payment_method: 'Visa',
  amount: 1234567.89,
  created_date: '2024-03-18T18:25:46.1234567',
  confirmation_code: '6613034213286177103010',
  order_tracking_id: 'b945e4af-80a5-4ec1-8706-e03f8332fb04',
  payment_status_description: 'Completed',
  description: 'Transaction approved',
  message: 'Request processed successfully',
  payment_account: '476173**0010',
  call_back_url: 'https://shop.example/return?OrderTrackingId=b945e4af',
  status_code: 1,
  merchant_reference: 'ORDER-1001',
  account_number: null,
  payment_status_code: '',
  currency: 'KES',
  error: nullError,
  status: '200',
};

describe('parseTransactionLookup', () => {
  it('parses the recorded pending lookup exactly: pending, not failed, EAT date to UTC', () => {
    const recorded = recordedResponse('get-transaction-status-pending');
    const lookup = parseTransactionLookup(
      'getTransactionStatus',
      recorded.http_status,
      recorded.body,
    );
    expect(lookup.kind).toBe('pending');
    if (lookup.kind !== 'pending') return;
    const { record } = lookup;
    expect(record).toMatchObject({
      orderTrackingId: '96a5e1d9-f711-4423-82ce-dd758f972713',
      merchantReference: '98771cd2-e240-3656-9e10-eb2f3d687ab2',
      outcome: 'pending',
      statusCode: 0,
      statusDescription: 'INVALID',
      confirmationCode: null,
      paymentMethod: null,
      paymentAccount: null,
      currency: 'KES',
      description: null,
      paymentStatusCode: null,
      accountNumber: null,
      callbackUrl:
        'http://www.zemlak.com/?OrderTrackingId=96a5e1d9-f711-4423-82ce-dd758f972713&OrderMerchantReference=98771cd2-e240-3656-9e10-eb2f3d687ab2',
    });
    expect(record.createdAt.toISOString()).toBe('2024-03-18T15:25:46.750Z');
    expect(record.amount.toDecimalString()).toBe('10.00');
    expect(record.raw).toBe(recorded.body);
    expect(record.subscription).toBeUndefined();
  });

  it('tells an unknown order from an unpaid one by the message alone', () => {
    const body = {
      error: {
        error_type: 'api_error',
        code: 'payment_details_not_found',
        message: 'Payment details not found',
        call_back_url: null,
      },
      status: '500',
    };
    expect(parseTransactionLookup('getTransactionStatus', 200, body)).toEqual({
      kind: 'not_found',
    });
  });

  it('reads a completed card payment with the all-null error object as found', () => {
    const lookup = parseTransactionLookup('getTransactionStatus', 200, completedCard);
    expect(lookup.kind).toBe('found');
    if (lookup.kind !== 'found') return;
    expect(lookup.record).toMatchObject({
      outcome: 'completed',
      statusCode: 1,
      confirmationCode: '6613034213286177103010',
      paymentMethod: 'Visa',
      paymentStatusCode: null,
      description: 'Transaction approved',
    });
    expect(lookup.record.amount.toDecimalString()).toBe('1234567.89');
    expect(lookup.record.createdAt.toISOString()).toBe('2024-03-18T15:25:46.123Z');
  });

  it('keeps a confirmation code of any length up to 500 characters exactly, and cuts the shown payment details to 64', () => {
    // 500 characters, one of them a pair of UTF-16 units: the column counts characters.
    const code = `\u{1F600}${'7'.repeat(499)}`;
    const lookup = parseTransactionLookup('getTransactionStatus', 200, {
      ...completedCard,
      confirmation_code: code,
      payment_method: 'M'.repeat(80),
      payment_account: `${'2547'.repeat(20)}`,
    });
    if (lookup.kind !== 'found') throw new Error(`read as ${lookup.kind}`);
    expect(lookup.record.confirmationCode).toBe(code);
    expect(lookup.record.paymentMethod).toBe('M'.repeat(64));
    expect(lookup.record.paymentAccount).toBe('2547'.repeat(16));
    // One character more cannot be kept exactly (a refund sends it back): the answer is refused.
    expect(() =>
      parseTransactionLookup('getTransactionStatus', 200, {
        ...completedCard,
        confirmation_code: `${code}7`,
      }),
    ).toThrow(/confirmation_code longer than 500 characters/);
  });

  it('decides the outcome on status_code, never on the description casing', () => {
    const failed = {
      ...completedCard,
      status_code: 2,
      payment_status_description: 'COMPLETED',
      payment_method: 'MpesaKE',
      confirmation_code: 1234,
      description: null,
      payment_status_code: 'request_terminated_by_user',
    };
    const lookup = parseTransactionLookup('getTransactionByMerchantReference', 200, failed);
    if (lookup.kind !== 'found') throw new Error(`expected found, got ${lookup.kind}`);
    expect(lookup.record.outcome).toBe('failed');
    // A failed mobile money payment's short numeric code is still a string.
    expect(lookup.record.confirmationCode).toBe('1234');
    expect(lookup.record.paymentStatusCode).toBe('request_terminated_by_user');
    expect(lookup.record.description).toBeNull();

    const reversed = parseTransactionLookup('queryStatusByConfirmationCode', 200, {
      ...completedCard,
      status_code: 3,
    });
    expect(reversed.kind === 'found' && reversed.record.outcome).toBe('reversed');
  });

  it('reads a recurring charge with its subscription info (correlation_id as text)', () => {
    const recurring = {
      ...completedCard,
      account_number: 'SUB-42',
      subscription_transaction_info: {
        account_reference: 'SUB-42',
        amount: 500.5,
        first_name: 'Amina',
        last_name: 'Otieno',
        correlation_id: 982734,
      },
    };
    const lookup = parseTransactionLookup('getTransactionStatus', 200, recurring);
    if (lookup.kind !== 'found') throw new Error('expected found');
    expect(lookup.record.accountNumber).toBe('SUB-42');
    expect(lookup.record.subscription).toMatchObject({
      accountReference: 'SUB-42',
      firstName: 'Amina',
      lastName: 'Otieno',
      correlationId: '982734',
    });
    expect(lookup.record.subscription?.amount.toDecimalString()).toBe('500.50');
  });

  it('throws typed errors for expired tokens and unreadable records', () => {
    const expired = expiredTokenAnswer();
    expect(() => parseTransactionLookup('getTransactionStatus', 500, expired)).toThrow(
      GatewayAuthError,
    );
    for (const broken of [
      { ...completedCard, status_code: 7 },
      { ...completedCard, amount: 10.001 },
      { ...completedCard, created_date: '18/03/2024' },
      { ...completedCard, order_tracking_id: undefined },
      'Request processed',
    ]) {
      expect(() => parseTransactionLookup('getTransactionStatus', 200, broken)).toThrow(
        GatewayMalformedResponseError,
      );
    }
  });
});
