import { Module } from '@nestjs/common';
import { DailyReportService } from './daily-report.service';
import { FinanceController } from './finance.controller';
import { FinanceSnapshots } from './finance-request';
import { PaymentExportService } from './payment-export.service';

/** Finance's reads: the payment export and the daily report (api only; nothing is written). */
@Module({
  controllers: [FinanceController],
  providers: [FinanceSnapshots, PaymentExportService, DailyReportService],
})
export class FinanceModule {}
