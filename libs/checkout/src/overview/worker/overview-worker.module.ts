import { Module } from '@nestjs/common';
import { ActivitySummer } from './activity-summer';

/** The overview's worker side: the minute job that sums settled hours into activity_totals. */
@Module({
  providers: [ActivitySummer],
})
export class OverviewWorkerModule {}
