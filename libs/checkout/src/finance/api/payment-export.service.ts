import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { FieldProblem } from '../../errors/checkout-error';
import {
  DEFAULT_PAYMENT_COLUMNS,
  PAYMENT_COLUMN_NAMES,
  PaymentColumn,
  PAYMENT_COLUMNS,
} from '../payment-columns';
import { PaymentExportQuery } from './finance.dto';
import { FinanceSnapshots } from './finance-request';
import { exportRows, movementParameters } from '../money-movements';

export interface PaymentExport {
  filename: string;
  body: Readable;
}

function readColumns(text: string | undefined): {
  columns: PaymentColumn[];
  problems: FieldProblem[];
} {
  if (text === undefined) return { columns: DEFAULT_PAYMENT_COLUMNS, problems: [] };
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(name in PAYMENT_COLUMNS));
  if (names.length === 0 || names.some((name) => name === '')) {
    return {
      columns: [],
      problems: [{ field: 'columns', reason: 'must list column names separated by commas' }],
    };
  }
  if (unknown.length > 0) {
    return {
      columns: [],
      problems: [
        {
          field: 'columns',
          reason: `unknown column ${unknown
            .slice(0, 3)
            .map((name) => JSON.stringify(name.slice(0, 40)))
            .join(', ')}; known: ${PAYMENT_COLUMN_NAMES.join(', ')}`,
        },
      ],
    };
  }
  if (new Set(names).size !== names.length) {
    return { columns: [], problems: [{ field: 'columns', reason: 'names a column twice' }] };
  }
  return { columns: names as PaymentColumn[], problems: [] };
}

/**
 * The payment export: every money movement of a range as CSV, written by PostgreSQL from one
 * snapshot and streamed, so memory stays flat whatever the range and rows that arrive while it
 * streams are neither repeated nor missed.
 */
@Injectable()
export class PaymentExportService {
  constructor(private readonly snapshots: FinanceSnapshots) {}

  /** Checks the request and opens the snapshot (a 400 comes before any byte of the file). */
  async open(query: PaymentExportQuery): Promise<PaymentExport> {
    const { columns, problems } = readColumns(query.columns);
    const snapshot = await this.snapshots.open(query, problems);
    const filters = {
      currency: query.currency?.toUpperCase(),
      type: query.type,
      status: query.status,
      account: query.account,
    };
    const parameters = movementParameters(snapshot.bounds, filters);
    const body = snapshot.csv(exportRows(columns), parameters, {
      byteOrderMark: query.excel === '1',
    });
    return { filename: exportNameOf('payments', query, snapshot.bounds.tz), body };
  }
}

/** e.g. payments_2026-11-01_2026-11-30_Africa-Nairobi.csv (only safe characters). */
export function exportNameOf(
  kind: string,
  query: { from: string; to: string },
  tz: string,
): string {
  const safe = (text: string) => text.replace(/[^0-9A-Za-z_.+-]+/g, '-');
  return `${kind}_${safe(query.from)}_${safe(query.to)}_${safe(tz)}.csv`;
}
