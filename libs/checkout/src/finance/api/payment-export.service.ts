import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { FieldProblem } from '../../errors/checkout-error';
import { PAYMENT_COLUMN_NAMES, PaymentColumn, PAYMENT_COLUMNS } from '../payment-columns';
import { PaymentExportQuery } from './finance.dto';
import { openFinanceSnapshot } from './finance-request';
import { EXPORT_ROWS, MovementRow, movementParameters } from './money-movements';
import { BYTE_ORDER_MARK, csvLines, movementLines } from './payment-csv';

/** Rows one FETCH brings: large enough to keep round trips few, small enough to hold at once. */
const BATCH_ROWS = 2000;

export interface PaymentExport {
  filename: string;
  body: Readable;
}

function readColumns(text: string | undefined): {
  columns: PaymentColumn[];
  problems: FieldProblem[];
} {
  if (text === undefined) return { columns: PAYMENT_COLUMN_NAMES, problems: [] };
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
 * The payment export: every money movement of a range as CSV, streamed from one snapshot through
 * a server-side cursor, so memory holds one batch whatever the range and rows that arrive while
 * it streams are neither repeated nor missed.
 */
@Injectable()
export class PaymentExportService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Checks the request and opens the snapshot (a 400 comes before any byte of the file). */
  async open(query: PaymentExportQuery): Promise<PaymentExport> {
    const { columns, problems } = readColumns(query.columns);
    const snapshot = await openFinanceSnapshot(this.dataSource, this.config, query, problems);
    const filters = {
      currency: query.currency?.toUpperCase(),
      type: query.type,
      status: query.status,
    };
    const parameters = movementParameters(snapshot.bounds.from, snapshot.bounds.to, filters);
    const lines = async function* (): AsyncGenerator<string> {
      yield `${query.excel === '1' ? BYTE_ORDER_MARK : ''}${csvLines([columns])}`;
      for await (const rows of snapshot.batches<MovementRow>(EXPORT_ROWS, parameters, BATCH_ROWS)) {
        yield movementLines(rows, columns);
      }
    };
    const body = Readable.from(lines(), { objectMode: false, highWaterMark: 64 * 1024 });
    // Ended, failed or abandoned by a client that went away: the connection goes back either way.
    let closed: Promise<void> | null = null;
    const close = () => (closed ??= snapshot.close());
    body.once('close', () => void close());
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
