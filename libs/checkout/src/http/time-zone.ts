import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { isTimeZone } from '@app/config';
import { FieldProblem } from '../errors/checkout-error';

/** The longest `tz` a query takes (an IANA zone name; isTimeZone takes no longer one either). */
export const TIME_ZONE_MAX_LENGTH = 64;

/** An optional IANA time zone in a query (`tz`): its bound and its document; timeZoneProblem checks the name. */
export const TimeZoneField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      description,
      example: 'Africa/Nairobi',
      maxLength: TIME_ZONE_MAX_LENGTH,
    }),
    IsOptional(),
    IsString(),
    MaxLength(TIME_ZONE_MAX_LENGTH),
  );

/** What is wrong with a `tz` a request named, or null: one message wherever a zone is taken. */
export function timeZoneProblem(tz: string): FieldProblem | null {
  return isTimeZone(tz)
    ? null
    : { field: 'tz', reason: 'must be an IANA time zone such as Africa/Nairobi or UTC' };
}

/** The zone's offset from UTC at `at`, in minutes (Africa/Nairobi: 180, Asia/Kolkata: 330). */
export function offsetMinutes(tz: string, at: Date): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name ?? '');
  if (!match) return 0; // "GMT": UTC itself
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}
