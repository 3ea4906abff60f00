import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { TimeZoneField } from '../../http/time-zone';
import { OVERVIEW_WINDOWS, OverviewWindow } from './overview.service';

export class OverviewQuery {
  @ApiPropertyOptional({
    enum: OVERVIEW_WINDOWS,
    default: 'day',
    description:
      'hour: the last 60 minutes per minute; day: the last 24 hours per hour; month: the last 30 local days per day',
  })
  @IsOptional()
  @IsIn(OVERVIEW_WINDOWS)
  window?: OverviewWindow;

  @TimeZoneField(
    "IANA time zone of the month's days (default REPORT_TIME_ZONE); a whole number of hours from UTC, as the totals are hourly",
  )
  tz?: string;
}
