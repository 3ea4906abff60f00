import { ApiProperty } from '@nestjs/swagger';
import type { HeaderObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { CURRENCY, DATE_TIME, INTEGER, SIGNED_AMOUNT, text } from '../../http/documented-schemas';
import { DEFAULT_PAYMENT_COLUMNS } from '../payment-columns';
import { DAILY_REPORT_COLUMNS, DAILY_REPORT_ROWS_MAX } from './daily-report.service';
import { TIME_ZONE_MAX_LENGTH } from '../../http/time-zone';
import { RANGE_TEXT_MAX_LENGTH } from './finance.dto';

/** Documentation of the finance answers (the JSON is built by DailyReportService.report). */

const AMOUNT = 'A decimal string with two decimals';
/** orders.payment_method is varchar(64). */
const PAYMENT_METHOD_MAX_LENGTH = 64;

/** One local day × currency × payment method. Refund and reversal amounts are negative. */
export class DailyReportRowResponse {
  @ApiProperty({
    type: String,
    format: 'date',
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    maxLength: 10,
    example: '2026-11-03',
    description: 'The local day in `tz`',
  })
  day!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({
    ...text(PAYMENT_METHOD_MAX_LENGTH),
    nullable: true,
    example: 'M-Pesa',
    description: "The gateway's payment method; null when it named none",
  })
  payment_method!: string | null;

  @ApiProperty({ ...INTEGER, example: 42, description: 'Payments received that day' })
  payments!: number;

  @ApiProperty({ ...SIGNED_AMOUNT, example: '63000.00', description: AMOUNT })
  payments_amount!: string;

  @ApiProperty({ ...INTEGER, example: 2, description: 'Refunds settled that day' })
  refunds!: number;

  @ApiProperty({
    ...SIGNED_AMOUNT,
    example: '-3000.00',
    description: `${AMOUNT}; negative (or 0.00)`,
  })
  refunds_amount!: string;

  @ApiProperty({
    ...INTEGER,
    example: 0,
    description: 'Payments reversed by the gateway (chargebacks) that day',
  })
  reversals!: number;

  @ApiProperty({ ...SIGNED_AMOUNT, example: '0.00', description: `${AMOUNT}; negative (or 0.00)` })
  reversals_amount!: string;

  @ApiProperty({
    ...SIGNED_AMOUNT,
    example: '60000.00',
    description: `${AMOUNT}: payments plus refunds plus reversals`,
  })
  net_amount!: string;

  @ApiProperty({ ...INTEGER, example: 5, description: 'Orders that failed that day' })
  failed!: number;

  @ApiProperty({
    ...INTEGER,
    example: 1,
    description: 'Orders cancelled that day',
  })
  cancelled!: number;
}

export class DailyReportResponse {
  @ApiProperty({
    ...DATE_TIME,
    example: '2026-10-31T21:00:00.000Z',
    description: 'Start of the range (included), as worked out in `tz`',
  })
  from!: string;

  @ApiProperty({
    ...DATE_TIME,
    example: '2026-11-30T21:00:00.000Z',
    description: 'End of the range (excluded)',
  })
  to!: string;

  @ApiProperty({
    ...text(TIME_ZONE_MAX_LENGTH),
    example: 'Africa/Nairobi',
    description: 'The IANA time zone of the days',
  })
  tz!: string;

  @ApiProperty({
    ...CURRENCY,
    nullable: true,
    description: 'The currency asked for; null for every currency',
  })
  currency!: string | null;

  @ApiProperty({
    type: String,
    maxLength: 20,
    example: 'ke',
    nullable: true,
    description: 'The merchant account asked for; null for every account',
  })
  account!: string | null;

  @ApiProperty({
    type: [DailyReportRowResponse],
    maxItems: DAILY_REPORT_ROWS_MAX,
    description:
      'By day, then currency, then payment method (none first); days without any are left out. A range of more rows is refused (400 naming `to`)',
  })
  rows!: DailyReportRowResponse[];
}

/** Every finance answer: never kept by a cache. */
export const NO_STORE_HEADER: Record<string, HeaderObject> = {
  'Cache-Control': {
    description: 'Never cached',
    schema: { type: 'string', enum: ['no-store'], example: 'no-store' },
  },
};

/**
 * A CSV answer's headers: a download named after its range and zone, never cached. The name is
 * exportNameOf's: `kind`, `from`, `to` and the zone joined by "_", each made of safe characters
 * (an unsafe run becomes one "-", so never longer than what the query gave) and ".csv".
 */
export function csvHeaders(kind: string, exampleFilename: string): Record<string, HeaderObject> {
  const filenameMaxLength =
    `${kind}___.csv`.length + 2 * RANGE_TEXT_MAX_LENGTH + TIME_ZONE_MAX_LENGTH;
  return {
    ...NO_STORE_HEADER,
    'Content-Disposition': {
      description: 'A download, named after the range and the time zone',
      schema: {
        type: 'string',
        pattern: `^attachment; filename="${kind}_[0-9A-Za-z_.+-]+\\.csv"$`,
        maxLength: 'attachment; filename=""'.length + filenameMaxLength,
        example: `attachment; filename="${exampleFilename}"`,
      },
    },
  };
}

/** The media type of the CSV answers (sent with charset=utf-8). */
export const CSV_MEDIA_TYPE = 'text/csv';

export const DAILY_CSV_DESCRIPTION = `UTF-8 CSV with a header line and the columns ${DAILY_REPORT_COLUMNS.join(', ')}, as in the JSON report`;

export const PAYMENTS_CSV_DESCRIPTION = `UTF-8 CSV (with a byte-order mark when excel=1), a header line, then one row per money movement, oldest first; columns as asked in \`columns\`, by default ${DEFAULT_PAYMENT_COLUMNS.join(', ')} (account only when asked for)`;
