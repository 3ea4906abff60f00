import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { TIME_ZONE_MAX_LENGTH } from '../../http/time-zone';
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

  @ApiPropertyOptional({
    description:
      "IANA time zone of the month's days (default REPORT_TIME_ZONE); a whole number of hours from UTC, as the totals are hourly",
    example: 'Africa/Nairobi',
    maxLength: TIME_ZONE_MAX_LENGTH,
  })
  @IsOptional()
  @IsString()
  @MaxLength(TIME_ZONE_MAX_LENGTH)
  tz?: string;
}
