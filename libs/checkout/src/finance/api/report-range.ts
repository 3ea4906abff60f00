import { timeZoneProblem } from '../../http/time-zone';
import { FieldProblem } from '../../errors/checkout-error';

/** What a request asks for: `from` and `to` as local dates or instants, `tz` an IANA zone. */
export interface RangeRequest {
  from?: string;
  to?: string;
  tz?: string;
}

/** The range as PostgreSQL reads it once the session's TimeZone is `tz`: [from, to). */
export interface RangeText {
  /** A date (its local midnight) or an instant with an offset. */
  from: string;
  /** Exclusive: the day after a `to` date, or a `to` instant as given. */
  to: string;
  /** `to` was a date: the range must hold at least that day, so `from` must come before `to`. */
  toIsDay: boolean;
  tz: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  // From 1900; and short of year 9999, whose last day's end (or an instant's UTC) is year 10000,
  // which no YYYY date-time can write.
  const year = Number(match[1]);
  return date.toISOString().slice(0, 10) === text && year >= 1900 && year < 9999;
}

function isInstant(text: string): boolean {
  return INSTANT.test(text) && !Number.isNaN(Date.parse(text)) && isCalendarDate(text.slice(0, 10));
}

/** The day after a YYYY-MM-DD date, as YYYY-MM-DD. */
function nextDay(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

const SHAPE = 'must be a date (YYYY-MM-DD) or an ISO 8601 instant with an offset';

/**
 * Reads `from`, `to` and `tz` as finance means them: dates are whole local days in `tz` (`to`
 * included), instants are exact (`to` excluded). The problems name each bad field; the bounds
 * themselves are worked out by PostgreSQL in the zone (finance-snapshot.ts), so that day
 * boundaries follow one time zone database.
 */
export function readRange(
  request: RangeRequest,
  defaultTimeZone: string,
): { range: RangeText | null; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const tz = request.tz ?? defaultTimeZone;
  const zoneProblem = timeZoneProblem(tz);
  if (zoneProblem) problems.push(zoneProblem);
  for (const field of ['from', 'to'] as const) {
    const value = request[field];
    if (value === undefined || value === '') problems.push({ field, reason: 'is required' });
    else if (!isCalendarDate(value) && !isInstant(value)) problems.push({ field, reason: SHAPE });
  }
  if (problems.length > 0) return { range: null, problems };
  const from = request.from as string;
  const to = request.to as string;
  const toIsDay = isCalendarDate(to);
  return { range: { from, to: toIsDay ? nextDay(to) : to, toIsDay, tz }, problems };
}
