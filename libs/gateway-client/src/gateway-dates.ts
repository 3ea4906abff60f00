/**
 * The gateway writes dates three ways; each is read here and nowhere else.
 * - IPN registration: UTC, seven fractional digits and a Z when new, trimmed and without Z when re-read.
 * - Transaction status created_date: East Africa Time (UTC+3) with no designator, 1–7 fractional digits.
 * - Subscription dates we send: dd-MM-yyyy (ISO 8601 is rejected).
 */
const GATEWAY_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?(Z|[+-]\d{2}:\d{2})?$/;

const EAST_AFRICA_OFFSET_MINUTES = 180;

export class GatewayDateError extends Error {
  constructor(readonly text: unknown) {
    super(`unrecognised gateway date ${JSON.stringify(text)}`);
    this.name = 'GatewayDateError';
  }
}

/**
 * Reads a gateway timestamp whose zone, when it carries none, is `offsetMinutes` east of UTC.
 * Date holds milliseconds, so digits beyond the third are truncated.
 */
function parseTimestamp(text: unknown, offsetMinutes: number): Date {
  if (typeof text !== 'string') throw new GatewayDateError(text);
  const match = GATEWAY_TIMESTAMP.exec(text.trim());
  if (!match) throw new GatewayDateError(text);
  const [, year, month, day, hour, minute, second, fraction = '', designator] = match;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const wallClock = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
    millis,
  );
  const date = new Date(wallClock - designatorOffsetMinutes(designator, offsetMinutes) * 60_000);
  // Date.UTC rolls 2024-02-30 over to March; the gateway never means that.
  if (new Date(wallClock).getUTCDate() !== Number(day)) throw new GatewayDateError(text);
  return date;
}

function designatorOffsetMinutes(designator: string | undefined, fallback: number): number {
  if (designator === undefined) return fallback;
  if (designator === 'Z') return 0;
  const sign = designator.startsWith('-') ? -1 : 1;
  const [hours, minutes] = designator.slice(1).split(':').map(Number);
  return sign * (hours * 60 + minutes);
}

/** IPN registration dates: UTC whether or not the Z is present. */
export function parseGatewayUtcDate(text: unknown): Date {
  return parseTimestamp(text, 0);
}

/** Transaction status created_date: East Africa Time without designator. */
export function parseEastAfricaDate(text: unknown): Date {
  return parseTimestamp(text, EAST_AFRICA_OFFSET_MINUTES);
}

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

const ISO_DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A subscription date as the merchant's calendar day in the gateway's zone: an ISO date
 * ("2025-07-01") is taken literally; a Date or ISO timestamp is read on the East Africa clock.
 */
export function toGatewayCalendarDate(value: Date | string): CalendarDate | null {
  if (typeof value === 'string') {
    const dateOnly = ISO_DATE_ONLY.exec(value.trim());
    if (dateOnly) {
      const date = { year: +dateOnly[1], month: +dateOnly[2], day: +dateOnly[3] };
      const check = new Date(Date.UTC(date.year, date.month - 1, date.day));
      return check.getUTCMonth() === date.month - 1 && check.getUTCDate() === date.day
        ? date
        : null;
    }
    if (!/^\d{4}-\d{2}-\d{2}T/.test(value.trim())) return null;
    value = new Date(value);
  }
  if (Number.isNaN(value.getTime())) return null;
  const eastAfrica = new Date(value.getTime() + EAST_AFRICA_OFFSET_MINUTES * 60_000);
  return {
    year: eastAfrica.getUTCFullYear(),
    month: eastAfrica.getUTCMonth() + 1,
    day: eastAfrica.getUTCDate(),
  };
}

/** Today on the gateway's (East Africa) calendar. */
export function gatewayToday(now: Date = new Date()): CalendarDate {
  return toGatewayCalendarDate(now) as CalendarDate;
}

export function compareCalendarDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** dd-MM-yyyy, the only date format the order body accepts. */
export function formatGatewayDate(date: CalendarDate): string {
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  return `${pad(date.day, 2)}-${pad(date.month, 2)}-${pad(date.year, 4)}`;
}
