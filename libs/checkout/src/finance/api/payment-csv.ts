import { stringify } from 'csv-stringify/sync';
import { maskAccount } from '../../orders/order-view';
import { PaymentColumn } from '../payment-columns';
import { MovementRow } from './money-movements';

/** Excel and LibreOffice read a UTF-8 file as UTF-8 when it starts with this mark. */
export const BYTE_ORDER_MARK = '\uFEFF';

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return first) is
 * prefixed with an apostrophe (CSV injection). Amounts and attempt numbers are ours and numeric,
 * so a refund's "-100.00" stays a number.
 */
export function inertCell(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A movement's cell as the file shows it: masked where it is a card or phone, inert, never null. */
function cellOf(row: MovementRow, column: PaymentColumn): string {
  switch (column) {
    case 'amount':
      return row.amount;
    case 'attempt':
      return row.attempt === null ? '' : String(row.attempt);
    case 'payment_account':
      return inertCell(maskAccount(row.payment_account) ?? '');
    case 'customer_phone':
      return inertCell(maskAccount(row.customer_phone) ?? '');
    default:
      return inertCell(row[column] ?? '');
  }
}

/** CSV lines as RFC 4180 writes them (CRLF, fields quoted where they must be). */
export function csvLines(records: string[][]): string {
  return stringify(records, { record_delimiter: 'windows' });
}

export function movementLines(rows: MovementRow[], columns: readonly PaymentColumn[]): string {
  return csvLines(rows.map((row) => columns.map((column) => cellOf(row, column))));
}
