import { Controller, Get, Header, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { AdminRoutes, Requires } from '../../operators/access-guards';
import { DailyReportService } from './daily-report.service';
import { DailyReportQuery, PaymentExportQuery } from './finance.dto';
import {
  CSV_MEDIA_TYPE,
  csvHeaders,
  DAILY_CSV_DESCRIPTION,
  DailyReportResponse,
  NO_STORE_HEADER,
  PAYMENTS_CSV_DESCRIPTION,
} from './finance-responses';
import { PaymentExportService, exportNameOf } from './payment-export.service';

const CSV = 'text/csv; charset=utf-8';

/** A CSV answer as the document shows it: its media type without the charset parameter. */
const csvAnswer = (description: string, kind: string, exampleFilename: string) =>
  ApiOkResponse({
    description,
    headers: csvHeaders(kind, exampleFilename),
    // A file of any number of rows, not a bounded string: its columns are in the description.
    content: { [CSV_MEDIA_TYPE]: {} },
  });

@ApiTags('admin: finance')
@ApiBearerAuth()
@AdminRoutes()
@Requires('finance:export')
@Controller('v1/admin')
export class FinanceController {
  constructor(
    private readonly exports: PaymentExportService,
    private readonly daily: DailyReportService,
  ) {}

  @Get('exports/payments.csv')
  @ApiOperation({
    summary: 'Every payment, refund and reversal of a range, as CSV (streamed from one snapshot)',
  })
  @ApiProduces(CSV_MEDIA_TYPE)
  @csvAnswer(
    PAYMENTS_CSV_DESCRIPTION,
    'payments',
    'payments_2026-11-01_2026-11-30_Africa-Nairobi.csv',
  )
  @Header('Cache-Control', 'no-store')
  async payments(@Query() query: PaymentExportQuery): Promise<StreamableFile> {
    const file = await this.exports.open(query);
    return new StreamableFile(file.body, {
      type: CSV,
      disposition: `attachment; filename="${file.filename}"`,
    });
  }

  @Get('reports/daily')
  @ApiOperation({ summary: 'Payments, refunds, net, failures and cancellations per local day' })
  @ApiOkResponse({
    type: DailyReportResponse,
    description: 'One row per local day, currency and payment method with any movement',
    headers: NO_STORE_HEADER,
  })
  @Header('Cache-Control', 'no-store')
  report(@Query() query: DailyReportQuery) {
    return this.daily.report(query);
  }

  @Get('reports/daily.csv')
  @ApiOperation({ summary: 'The daily report as CSV' })
  @ApiProduces(CSV_MEDIA_TYPE)
  @csvAnswer(DAILY_CSV_DESCRIPTION, 'daily', 'daily_2026-11-01_2026-11-30_Africa-Nairobi.csv')
  @Header('Cache-Control', 'no-store')
  async reportCsv(@Query() query: DailyReportQuery): Promise<StreamableFile> {
    const file = await this.daily.csv(query);
    return new StreamableFile(file.body, {
      type: CSV,
      disposition: `attachment; filename="${exportNameOf('daily', query, file.tz)}"`,
    });
  }
}
