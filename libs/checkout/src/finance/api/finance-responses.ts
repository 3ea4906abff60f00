import { ApiProperty } from '@nestjs/swagger';
import type { HeaderObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { PAYMENT_COLUMN_NAMES } from '../payment-columns';
import { DAILY_REPORT_COLUMNS } from './daily-report.service';

/** Documentation of the finance answers (the JSON is built by DailyReportService.report). */

const AMOUNT = 'A decimal string with two decimals';
const DECIMAL = '^-?[0-9]+\\.[0-9]{2}$';

/** One local day × currency × payment method. Refund and reversal amounts are negative. */
export class DailyReportRowResponse {
  @ApiProperty({
    type: String,
    format: 'date',
    example: '2026-11-03',
    description: 'The local day in `tz`',
  })
  day!: string;

  @ApiProperty({ example: 'KES' })
  currency!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'M-Pesa',
    description: "The gateway's payment method; null when it named none",
  })
  payment_method!: string | null;

  @ApiProperty({ type: 'integer', example: 42, description: 'Payments received that day' })
  payments!: number;

  @ApiProperty({ pattern: DECIMAL, example: '63000.00', description: AMOUNT })
  payments_amount!: string;

  @ApiProperty({ type: 'integer', example: 2, description: 'Refunds settled that day' })
  refunds!: number;

  @ApiProperty({
    pattern: DECIMAL,
    example: '-3000.00',
    description: `${AMOUNT}; negative (or 0.00)`,
  })
  refunds_amount!: string;

  @ApiProperty({
    type: 'integer',
    example: 0,
    description: 'Payments reversed by the gateway (chargebacks) that day',
  })
  reversals!: number;

  @ApiProperty({ pattern: DECIMAL, example: '0.00', description: `${AMOUNT}; negative (or 0.00)` })
  reversals_amount!: string;

  @ApiProperty({
    pattern: DECIMAL,
    example: '60000.00',
    description: `${AMOUNT}: payments plus refunds plus reversals`,
  })
  net_amount!: string;

  @ApiProperty({ type: 'integer', example: 5, description: 'Orders that failed that day' })
  failed!: number;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'Orders cancelled that day',
  })
  cancelled!: number;
}

export class DailyReportResponse {
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-10-31T21:00:00.000Z',
    description: 'Start of the range (included), as worked out in `tz`',
  })
  from!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-11-30T21:00:00.000Z',
    description: 'End of the range (excluded)',
  })
  to!: string;

  @ApiProperty({ example: 'Africa/Nairobi', description: 'The IANA time zone of the days' })
  tz!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'KES',
    description: 'The currency asked for; null for every currency',
  })
  currency!: string | null;

  @ApiProperty({
    type: [DailyReportRowResponse],
    description:
      'By day, then currency, then payment method (none first); days without any are left out',
  })
  rows!: DailyReportRowResponse[];
}

/** Every finance answer: never kept by a cache. */
export const NO_STORE_HEADER: Record<string, HeaderObject> = {
  'Cache-Control': { description: 'Never cached', schema: { type: 'string', example: 'no-store' } },
};

/** A CSV answer's headers: a download named after its range and zone, never cached. */
export function csvHeaders(exampleFilename: string): Record<string, HeaderObject> {
  return {
    ...NO_STORE_HEADER,
    'Content-Disposition': {
      description: 'A download, named after the range and the time zone',
      schema: { type: 'string', example: `attachment; filename="${exampleFilename}"` },
    },
  };
}

/** The media type of the CSV answers (sent with charset=utf-8). */
export const CSV_MEDIA_TYPE = 'text/csv';

export const DAILY_CSV_DESCRIPTION = `UTF-8 CSV with a header line and the columns ${DAILY_REPORT_COLUMNS.join(', ')}, as in the JSON report`;

export const PAYMENTS_CSV_DESCRIPTION = `UTF-8 CSV (with a byte-order mark when excel=1), a header line, then one row per money movement, oldest first; columns as asked in \`columns\`, by default ${PAYMENT_COLUMN_NAMES.join(', ')}`;
