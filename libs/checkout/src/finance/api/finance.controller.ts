import { Controller, Get, Header, Query, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../../http/api-key.guards';
import { DailyReportService } from './daily-report.service';
import { DailyReportQuery, PaymentExportQuery } from './finance.dto';
import { PaymentExportService, exportNameOf } from './payment-export.service';

const CSV = 'text/csv; charset=utf-8';

@ApiTags('admin: finance')
@ApiBearerAuth()
@UseGuards(AdminKeyGuard)
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
  @ApiProduces(CSV)
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
  @Header('Cache-Control', 'no-store')
  report(@Query() query: DailyReportQuery) {
    return this.daily.report(query);
  }

  @Get('reports/daily.csv')
  @ApiOperation({ summary: 'The daily report as CSV' })
  @ApiProduces(CSV)
  @Header('Cache-Control', 'no-store')
  async reportCsv(@Query() query: DailyReportQuery): Promise<StreamableFile> {
    const file = await this.daily.csv(query);
    return new StreamableFile(file.body, {
      type: CSV,
      disposition: `attachment; filename="${exportNameOf('daily', query, file.tz)}"`,
    });
  }
}
