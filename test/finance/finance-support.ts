/**
 * What the finance suites share: finance's payment export and daily report, against the api and
 * PostgreSQL. Each test seeds its movements on days of 2015 no other suite writes to, so the
 * ranges hold only its own rows.
 */
import { parse } from 'csv-parse/sync';
import { SeededApi, startSeededApi } from '../support/seeded-api';

export type Row = Record<string, string>;

export const DEFAULT_COLUMNS = [
  'occurred_at_utc',
  'occurred_at_local',
  'type',
  'status',
  'merchant_reference',
  'order_tracking_id',
  'attempt',
  'confirmation_code',
  'currency',
  'amount',
  'payment_method',
  'payment_account',
  'customer_email',
  'customer_phone',
  'refund_reason',
  'original_reference',
  'description',
  'payment_link',
];

/** Exact sums of decimal strings, in cents. */
export const cents = (amount: string) => {
  const negative = amount.startsWith('-');
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -value : value;
};
export const total = (amounts: string[]) =>
  amounts.reduce((sum, amount) => sum + cents(amount), 0n);

export interface FinanceApi extends SeededApi {
  /** The payment export of `query`, checked to be a CSV attachment, and its rows. */
  exportRows(query: string): Promise<{ rows: Row[]; text: string }>;
}

export async function startFinanceApi(): Promise<FinanceApi> {
  const api = await startSeededApi({ poolSize: 4 });
  return {
    ...api,
    async exportRows(query) {
      const response = await api.get(`/v1/admin/exports/payments.csv?${query}`).buffer(true);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toMatch(/^attachment; filename="payments_/);
      const text = response.text;
      return { rows: parse(text, { columns: true, bom: true }) as Row[], text };
    },
  };
}
