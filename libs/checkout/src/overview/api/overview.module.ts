import { Module } from '@nestjs/common';
import { OverviewController } from './overview.controller';
import { OverviewService } from './overview.service';

/** The overview's read (api only): the totals the worker summed, and the latest hour live. */
@Module({
  controllers: [OverviewController],
  providers: [OverviewService],
})
export class OverviewModule {}
